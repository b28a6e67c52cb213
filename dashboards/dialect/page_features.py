"""Dashboard page: which dialect features cost recall (rule-based variants, one row per rule)."""

from __future__ import annotations

import altair as alt
import duckdb

from dashboards.common.format import fixed, interval, p_value, percent, points
from dashboards.common.html import chart, table, text
from dashboards.common.provenance import provenance_section
from dashboards.common.queries import query_rows
from dashboards.common.site import register_page
from dashboards.dialect.card_features import RUNS, feature_finding, fired_rules
from dashboards.dialect.charts_features import feature_effects_chart
from dashboards.dialect.power_sentences import reachable_gap

ALPHA = 0.05
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
    "p_holm",
    "detectable_gap_pp",
]


def _frame(con, run_id: str, pair_set: str, retriever: str):
    """The rules that changed at least one question (a rule that fired nowhere has nothing to show)."""
    return con.execute(
        "select *, case when p_holm < ? then 'yes' else 'no' end as significant"
        " from analysis.dialect_feature_effects where run_id = ? and pair_set = ? and retriever = ? and n_pairs > 0"
        " order by k, is_all_rules desc, delta_pp desc, rule",
        [ALPHA, run_id, pair_set, retriever],
    ).df()


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
            found[f"{pair_set}:{retriever}"] = feature_effects_chart(frame)
    return found


def _gap(row) -> str:
    """The detectable gap where a gap that large can occur at the rule's discordance, else "none"
    (dashboards/dialect/power_sentences.py says why)."""
    rate = row.n_discordant / row.n_pairs if row.n_pairs else None
    gap = reachable_gap({"detectable_gap_pp": row.detectable_gap_pp, "discordance_rate": rate})
    return "none" if gap is None else fixed(gap, 1)


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
            p_value(r.p_holm) if not r.is_all_rules else "–",
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
    return "".join(
        [
            f'<p class="verdict">{feature_finding(fired_rules(con, run_id))}</p>',
            '<p class="note">One row per rule (ingest/dialect/rules.py, each a documented feature): recall with '
            "the SAE question (recall A) and with the variant that rule alone made (recall B), over the pairs "
            "where it changed the question; the difference SAE minus variant in points (positive: the feature "
            "costs recall) with a seeded paired-bootstrap 95% interval; McNemar exact p, and Holm over the "
            "single rules per (retriever, k); detectable gap: the smallest difference, in points, these pairs "
            "detect with 80% power at α = 0.05 (Connor 1987). aae_rules: every rule together, over all pairs.</p>",
            *(_section(con, run_id, p, r, figures.get(f"{p}:{r}")) for p, r in sections),
            provenance_section(con, run_id),
        ]
    )
