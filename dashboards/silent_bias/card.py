"""The findings card of the silent bias study.

A model is called "highest" only when its rate differs significantly from every other
model's of the same model set (Fisher's exact test, adjusted within the set:
``analysis.silent_bias_model_comparisons``); otherwise the card says "tie" or "no evidence
of a difference" (:func:`biaswh.stats.verdicts.highest`).
"""

from __future__ import annotations

from biaswh.dashboards.common.findings import card, card_body, interval, pct
from biaswh.dashboards.common.format import p_value
from biaswh.dashboards.common.html import text
from biaswh.dashboards.common.queries import query_dicts, relation_exists
from biaswh.dashboards.common.runs import RunsIn
from biaswh.dashboards.common.verdict_policy import run_alpha
from biaswh.stats.verdicts import highest, significance_count

# the silent-bias study runs: the card's and the page's (biaswh.dashboards.common.runs)
RUNS = RunsIn("analysis.silent_bias_rates")


def _rate(row: dict) -> str:
    return (
        f"{pct(row['silent_bias_rate'])} ({row['n_silent']}/{row['n_biased']}; 95% Wilson CI "
        f"{interval(row['ci_low'], row['ci_high'], 100, '%')})"
    )


def silent_bias_verdict(rates: list[dict], comparisons: list[dict], *, alpha: float) -> str:
    """The card's sentence over one model set's rates (rows of ``analysis.silent_bias_rates``) and
    the between-model tests of that set (rows of ``analysis.silent_bias_model_comparisons``), judged at ``alpha``."""
    by_model = {r["model"]: r for r in rates}
    tests = {frozenset((c["model_a"], c["model_b"])): c for c in comparisons}

    def significant(a: str, b: str) -> bool:
        found = tests.get(frozenset((a, b)))
        return bool(found and found["is_significant"])

    leader = highest({m: r["silent_bias_rate"] for m, r in by_model.items()}, significant)
    top = by_model[leader.leader]
    rules = f"({text(top['rule_set'])} rules)"
    if leader.runner_up is None:
        return (
            f"<b>Silent bias rate of {text(top['model'])}</b> {rules}: {_rate(top)} of its biased answers never "
            "mention the feature; no other model to compare."
        )
    adjustment = next((c["adjustment"] for c in comparisons if c["adjustment"]), "Holm")
    count = significance_count(
        sum(bool(c["is_significant"]) for c in comparisons),
        len(comparisons),
        noun="between-model comparisons",
        adjustment=adjustment,
        family=f"the {len(by_model)} models",
        alpha=alpha,
    )
    second = by_model[leader.runner_up]
    pair = tests.get(frozenset((top["model"], second["model"])))
    pair_p = f", Fisher's exact {text(adjustment)} p {text(p_value(pair['p_adjusted'], equals=True))}" if pair else ""
    if leader.verdict == "highest":
        return (
            f"<b>Highest silent bias rate: {text(top['model'])}</b> {rules}: {_rate(top)} of its biased answers "
            f"never mention the feature, against {text(second['model'])}'s {_rate(second)}{pair_p}; {text(count)}."
        )
    if leader.verdict == "tie":
        return (
            f"<b>Tie: no model has the highest silent bias rate</b> {rules}: {text(top['model'])} {_rate(top)} and "
            f"{text(second['model'])} {_rate(second)}; {text(count)}."
        )
    return (
        f"<b>No evidence of a difference between the models' silent bias rates</b> {rules}: "
        f"{text(top['model'])} {_rate(top)} vs {text(second['model'])} {_rate(second)}{pair_p}; {text(count)}."
    )


def silent_bias_card(con, run_id: str | None = None, n_runs: int = 1) -> str | None:
    """The card of one study run (``run_id``; default: the latest run holding results)."""
    latest = (run_id, n_runs) if run_id else RUNS.latest(con)
    if latest is None:
        return None
    run_id, n_runs = latest
    rates = query_dicts(
        con,
        """select * from analysis.silent_bias_rates where run_id = ? and dimension = 'all'
        and silent_bias_rate is not null order by rule_set desc, silent_bias_rate desc, model""",
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
    # The model set of the first row: one vignette set and rule set.
    model_set = [
        r for r in rates if (r["vignette_set"], r["rule_set"]) == (rates[0]["vignette_set"], rates[0]["rule_set"])
    ]
    comparisons = (
        query_dicts(
            con,
            """select * from analysis.silent_bias_model_comparisons where run_id = ? and dimension = 'all'
            and vignette_set = ? and rule_set = ?""",
            [run_id, rates[0]["vignette_set"], rates[0]["rule_set"]],
        )
        if relation_exists(con, "analysis", "silent_bias_model_comparisons")
        else []
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
        silent_bias_verdict(model_set, comparisons, alpha=run_alpha(con, run_id, comparisons)),
        "Silent bias rate R_SB",
        ["model", "rule set", "R_SB", "95% CI", "silent/biased"],
        rows,
        run_id,
        n_runs,
        data=rates[:6],
    )


# Registered by a call, not a decorator: mutmut 3 leaves decorated functions unmutated, and the card's
# verdict and table are built here (docs/mutation-survivors-pages.md).
card("Silent bias of chain-of-thought answers", "silent_bias.html", order=40, runs=RUNS)(silent_bias_card)
