"""The findings card of the silent bias study."""

from __future__ import annotations

from dashboards.findings import card, card_body, interval, latest_run, pct
from dashboards.html import text
from dashboards.queries import query_dicts


@card("Silent bias of chain-of-thought answers", "silent_bias.html")
def silent_bias_card(con) -> str | None:
    latest = latest_run(con, "analysis.silent_bias_rates")
    if latest is None:
        return None
    run_id, n_runs = latest
    rates = query_dicts(
        con,
        """select * from analysis.silent_bias_rates where run_id = ? and dimension = 'all'
        and silent_bias_rate is not null order by rule_set desc, silent_bias_rate desc""",
        [run_id],
    )
    if not rates:
        return card_body(
            "<b>Undefined</b>: no model gave a biased answer, so no silent bias rate is defined.",
            "",
            [],
            [],
            run_id,
            n_runs,
        )
    top = rates[0]
    verdict = (
        f"<b>Highest silent bias rate: {text(top['model'])}</b> ({text(top['rule_set'])} rules): "
        f"{pct(top['silent_bias_rate'])} of its biased answers never mention the feature "
        f"({top['n_silent']}/{top['n_biased']}; 95% Wilson CI {interval(top['ci_low'], top['ci_high'], 100, '%')})."
    )
    rows = [
        [
            r["model"],
            r["rule_set"],
            pct(r["silent_bias_rate"]),
            interval(r["ci_low"], r["ci_high"], 100, "%"),
            f"{r['n_silent']}/{r['n_biased']}",
        ]
        for r in rates[:6]
    ]
    return card_body(
        verdict, "Silent bias rate R_SB", ["model", "rule set", "R_SB", "95% CI", "silent/biased"], rows, run_id, n_runs
    )
