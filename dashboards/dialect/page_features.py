"""Dashboard page: which dialect features cost recall (rule-based variants, one row per rule)."""

from __future__ import annotations

import duckdb

from dashboards.common.html import chart, table, text
from dashboards.common.queries import number, query_rows, relation_exists
from dashboards.common.site import register_page
from dashboards.dialect.charts_features import feature_effects_chart

ALPHA = 0.05
COLUMNS = """retriever, k, rule, rule_source, n_pairs, recall_a, recall_b, delta_pp, ci_low, ci_high, n_discordant,
    p_exact, p_holm, detectable_gap_pp"""


def _section(con, run_id: str, pair_set: str, retriever: str) -> str:
    frame = con.execute(
        "select *, p_holm < ? as significant from analysis.dialect_feature_effects"
        " where run_id = ? and pair_set = ? and retriever = ? order by k, is_all_rules desc, delta_pp desc",
        [ALPHA, run_id, pair_set, retriever],
    ).df()
    columns = [c.strip() for c in COLUMNS.split(",")]
    rows = [[number(v, 4) if isinstance(v, float) else v for v in row] for row in frame[columns].values.tolist()]
    return f"<h3>{text(pair_set)}: {text(retriever)}</h3>" + chart(feature_effects_chart(frame)) + table(columns, rows)


def analysed_runs(con: duckdb.DuckDBPyConnection) -> list[tuple[str, str]]:
    """Study runs with per-feature results, newest first, labelled by study and start."""
    if not relation_exists(con, "analysis", "dialect_feature_effects"):
        return []
    return [
        (run_id, f"{name} {str(started)[:16]}")
        for run_id, name, started in con.execute(
            "select r.run_id, r.run_name, r.started_at from marts.dim_runs r"
            " where r.run_id in (select run_id from analysis.dialect_feature_effects) order by r.started_at desc"
        ).fetchall()
    ]


@register_page("dialect_features.html", "Dialect features", runs=analysed_runs)
def render(con: duckdb.DuckDBPyConnection, run_id: str | None) -> str:
    """The dialect features page of study run ``run_id``."""
    if run_id is None:
        return '<p class="note">No rule-based dialect study has been analysed in this warehouse yet.</p>'
    _, sections = query_rows(
        con,
        "select distinct pair_set, retriever from analysis.dialect_feature_effects where run_id = ? order by all",
        [run_id],
    )
    return "".join(
        [
            f'<p class="note">Study run <code>{text(run_id)}</code>. One row per rule (ingest/'
            "dialect_rules.py, each a documented feature): the recall difference SAE minus variant in points "
            "(positive: the feature costs recall) over the pairs where that rule alone changed the question, "
            "with a seeded paired-bootstrap 95% interval; McNemar exact p and Holm over the single rules per "
            "(retriever, k); detectable_gap_pp: the smallest gap these pairs detect with 80% power at "
            "α = 0.05 (Connor 1987). aae_rules: every rule together, over all pairs.</p>",
            *(_section(con, run_id, pair_set, retriever) for pair_set, retriever in sections),
        ]
    )
