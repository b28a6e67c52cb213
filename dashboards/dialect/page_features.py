"""Dashboard page: which dialect features cost recall (rule-based variants, one row per rule)."""

from __future__ import annotations

import altair as alt
import duckdb

from biaswh.dashboards.common.format import fixed, interval, p_value, percent, points
from biaswh.dashboards.common.html import chart, table, text
from biaswh.dashboards.common.provenance import provenance_section
from biaswh.dashboards.common.queries import query_dicts, query_rows
from biaswh.dashboards.common.site import register_page
from biaswh.dashboards.common.verdict_policy import adjustment_name
from biaswh.dashboards.dialect.card_features import RUNS, feature_finding, fired_rules, judged, rules_policy
from biaswh.dashboards.dialect.charts_features import feature_effects_chart
from biaswh.dashboards.dialect.power_sentences import reachable_gap
from biaswh.stats.verdicts import alpha_text

COLUMNS = [
    "rule",
    "rule_source",
    "n_pairs",
    "recall_a",
    "recall_b",
    "delta_pp",
    "ci_95_pp",
    "n_discordant",
    "p_exact",
    "p_adjusted",
    "significant",
    "detectable_gap_pp",
]


def _frame(con, run_id: str, pair_set: str, retriever: str):
    """The rules that changed at least one question (a rule that fired nowhere has nothing to show),
    with the verdict policy's columns (a run analysed before they were stored: Holm at the default alpha)."""
    import pandas as pd

    rows = [
        judged(row)
        for row in query_dicts(
            con,
            "select * from analysis.dialect_feature_effects where run_id = ? and pair_set = ? and retriever = ?"
            " and n_pairs > 0 order by k, is_all_rules desc, delta_pp desc, rule",
            [run_id, pair_set, retriever],
        )
    ]
    frame = pd.DataFrame(rows)
    if len(frame):
        frame["significant"] = ["yes" if r.get("is_significant") else "no" for r in rows]
    return frame


def charts(con: duckdb.DuckDBPyConnection, run_id: str) -> dict[str, alt.TopLevelMixin]:
    """The page's charts of one run, by ``<pair set>:<retriever>`` (no HTML written)."""
    _, sections = query_rows(
        con,
        "select distinct pair_set, retriever from analysis.dialect_feature_effects where run_id = ? order by all",
        [run_id],
    )
    found = {}
    for pair_set, retriever in sections:
        frame = _frame(con, run_id, pair_set, retriever)
        if len(frame):
            found[f"{pair_set}:{retriever}"] = feature_effects_chart(frame, legend=_legend(frame.to_dict("records")))
    return found


def _gap(row) -> str:
    """The detectable gap where a gap that large can occur at the rule's discordance, else "none"
    (dashboards/dialect/power_sentences.py says why)."""
    rate = row.n_discordant / row.n_pairs if row.n_pairs else None
    gap = reachable_gap({"detectable_gap_pp": row.detectable_gap_pp, "discordance_rate": rate})
    return "none" if gap is None else fixed(gap, 1)


def _legend(rows: list[dict]) -> str:
    """The chart's colour legend: the rule it colours by, e.g. "Holm p < 0.05 (within each k's rules)"."""
    first = next(r for r in rows if r.get("alpha") is not None)
    return f"{adjustment_name(first.get('adjustment'))} p < {first['alpha']:g} (within each k's rules)"


def _section(con, run_id: str, pair_set: str, retriever: str, figure) -> str:
    frame = _frame(con, run_id, pair_set, retriever)
    silent = con.execute(
        "select distinct rule from analysis.dialect_feature_effects where run_id = ? and pair_set = ?"
        " and retriever = ? and n_pairs = 0 order by rule",
        [run_id, pair_set, retriever],
    ).fetchall()
    rows = [
        [
            r.rule,
            r.rule_source,
            int(r.n_pairs),
            percent(r.recall_a),
            percent(r.recall_b),
            points(r.delta_pp),
            interval(r.ci_low, r.ci_high, unit="points"),
            int(r.n_discordant),
            p_value(r.p_exact),
            p_value(r.p_adjusted) if not r.is_all_rules else "–",
            r.significant,
            _gap(r),
        ]
        for r in frame.itertuples()
    ]
    by_k = {}
    for k, row in zip(frame["k"].tolist(), rows):
        by_k.setdefault(k, []).append(row)
    tables = "".join(
        f"<h4>k = {k}</h4>" + table(COLUMNS, found, data=frame[frame["k"] == k], css_class="features")
        for k, found in by_k.items()
    )
    note = (
        f'<p class="note">Rules that changed no question here (not shown): {text(", ".join(r[0] for r in silent))}.</p>'
        if silent
        else ""
    )
    return (
        f"<h3>{text(pair_set)}: {text(retriever)}</h3>"
        + (chart(figure, name=f"dialect_features_{pair_set}") if figure is not None else "")
        + note
        + tables
    )


@register_page(
    "dialect_features.html",
    "Dialect features",
    runs=RUNS,
    studies=("studies/demo_rule_variants.toml", "studies/squad_rule_variants.toml"),
)
def render(con: duckdb.DuckDBPyConnection, run_id: str | None = None) -> str:
    """One run's page (default: the latest run with per-feature results)."""
    if run_id is None:
        found = RUNS.latest(con)
        if found is None:
            return '<p class="note">No rule-based dialect study has been analysed in this warehouse yet.</p>'
        run_id = found[0]
    _, sections = query_rows(
        con,
        "select distinct pair_set, retriever from analysis.dialect_feature_effects where run_id = ? order by all",
        [run_id],
    )
    figures = charts(con, run_id)
    fired = fired_rules(con, run_id)
    policy = rules_policy(fired) if fired else ""
    alpha = next((r["alpha"] for r in fired if r.get("alpha") is not None), None)
    return "".join(
        [
            f'<p class="verdict">{feature_finding(fired)}</p>',
            '<p class="note">One row per rule (ingest/dialect/rules.py, each a documented feature): recall with '
            "the SAE question (recall A) and with the variant that rule alone made (recall B), over the pairs "
            "where it changed the question; the difference SAE minus variant in points (positive: the feature "
            "costs recall) with Newcombe's hybrid score 95% interval for paired proportions (method 10, 1998); "
            "McNemar exact p, adjusted over the single rules per (retriever, k) by the study's verdict policy "
            f"({text(policy)}); significant: adjusted p below alpha; detectable gap: the smallest difference, in "
            f"points, these pairs detect with 80% power at {alpha_text(alpha) if alpha else 'the same alpha'} "
            "(Connor 1987). aae_rules: every rule together, over all pairs.</p>",
            *(_section(con, run_id, p, r, figures.get(f"{p}:{r}")) for p, r in sections),
            provenance_section(con, run_id),
        ]
    )
