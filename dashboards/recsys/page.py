"""Dashboard page: which post features LLM recommenders favour, how strongly and how consistently."""

from __future__ import annotations

import duckdb

from biaswh.dashboards.common.html import chart, table, text
from biaswh.dashboards.common.provenance import provenance_section
from biaswh.dashboards.common.queries import relation_exists
from biaswh.dashboards.common.site import register_page
from biaswh.dashboards.recsys.card import AGGREGATED, RUNS, SUMMARY, published_alpha, verdict_rule
from biaswh.dashboards.recsys.charts import (
    MARKER_LEVELS,
    aggregated_heatmap_chart,
    as_published,
    condition_heatmap_chart,
    condition_interval_chart,
    fully_aggregated_bar_chart,
    signed_aggregated_heatmap_chart,
    signed_bias_bar_chart,
    signed_condition_heatmap_chart,
)
from biaswh.dashboards.recsys.figures import paper_figures_section

AGGREGATED_LEVELS = {"prompt": "prompt style", "dataset": "dataset", "model": "model (provider)"}
RESULT_COLUMNS = [
    "feature",
    "dataset",
    "provider",
    "prompt_style",
    "metric",
    "bias",
    "p_value",
    "p_value_adjusted",
    "significant",
    "n_recommended",
    "n_pool",
    "hedges_g",
    "ci_low",
    "ci_high",
    "bias_corrected_v",
    "status",
    "message",
]


def _intro(rule: str, published: str) -> str:
    """What the page's markers and grey cells mean, with the run's verdict policy (``rule``) and the
    original's raw-p rule (``published``)."""
    return (
        '<p class="note">Each condition (dataset × model × prompt style) compares the posts a model recommended '
        "with the pool it was shown. Numerical features: Cohen's d (recommended minus pool, pooled SD) and "
        "Welch's t-test; categorical and binary features: Cramér's V and the chi-square test (Yates' correction "
        "on 2×2 tables). The heatmaps colour the signed bias (bias / max |bias| per feature, -1 to 1: red, the "
        "model favours higher values or the category mix differs; blue, lower) on a diverging scale around 0, "
        "and grey out cells whose conditions are not mostly significant, so noise is not painted. The verdicts, "
        "the markers (* above 50 %, ** above 60 %, *** above 75 % of the conditions) and the grey cells all "
        f"count tests {text(rule)} (the family: every feature × condition of one recommendation run). The "
        "original's min-max views, which stretch noise over 0-1, stay available below each result set, "
        f"labelled {text(published)}: their markers count raw p, as the paper did.</p>"
    )


def _label(value: float, marker: str) -> str:
    return f"{value:.2f}{marker or ''}"


def _lead(overall, adjusted: dict[str, int], family: str) -> str:
    """The finding: which features are significant in most conditions after the adjustment within the
    result set (``adjusted``: feature -> conditions significant after adjustment), and which way."""
    overall = overall.assign(n_adjusted=[adjusted.get(f, 0) for f in overall["feature"]])
    consistent = overall[overall["n_adjusted"] > overall["n_conditions"] / 2].sort_values("n_adjusted", ascending=False)
    if consistent.empty:
        return (
            '<p class="verdict"><b>No feature is consistently favoured</b>: none is significant after '
            f"adjustment in more than half of its conditions ({text(family)}).</p>"
        )
    items = "; ".join(
        f"<b>{text(r.feature)}</b> (mean bias {r.bias_mean:.3g}, significant in "
        f"{r.n_adjusted} of {r.n_conditions} conditions)"
        for r in consistent.itertuples()
    )
    return (
        f'<p class="verdict">{len(consistent)} of {len(overall)} features differ between recommended posts '
        f"and the pool in most conditions ({text(family)}): {items}. The other features show no consistent "
        "difference.</p>"
    )


def _levels(con, run_id: str, source: str, result_set: str, level: str, *, published: bool):
    """One aggregation level of a result set; ``value`` is what the heatmaps colour. ``share_significant``
    and ``marker`` are the verdicts' (adjusted, at the policy's alpha), or the original's raw-p ones
    when ``published``."""
    share, marker = ("share_significant", "marker") if published else ("share_significant_adjusted", "marker_adjusted")
    return con.execute(
        "select feature, group_value, dataset, provider, prompt_style, normalized_bias_mean as value, bias_mean,"
        f" coalesce({share}, 0) as share_significant, n_conditions, coalesce({marker}, '') as marker,"
        " normalized_bias_mean, signed_normalized_bias_mean"
        f" from {AGGREGATED} where run_id = ? and result_source = ? and result_set = ? and level = ?"
        " order by feature, group_value",
        [run_id, source, result_set, level],
    ).df()


def _synthetic_post_sets(con) -> set[str]:
    """Post sets whose ingest run records them as simulated (ingest/recsys/simulate.py)."""
    if not (relation_exists(con, "marts", "fct_recsys_post_values") and relation_exists(con, "marts", "dim_runs")):
        return set()
    return {
        r[0]
        for r in con.execute(
            "select distinct post_values.post_set from marts.fct_recsys_post_values as post_values"
            " inner join marts.dim_runs as runs on post_values.run_id = runs.run_id"
            " where coalesce("
            "try_cast(json_extract_string(runs.parameters, '$.provenance.synthetic') as boolean), false)"
        ).fetchall()
    }


def _result_set_section(con, run_id: str, source: str, result_set: str, *, synthetic: bool) -> str:
    label = "SYNTHETIC data, simulated with injected biases; " if synthetic else ""
    parts = [f'<h2>{text(result_set)} <span class="note">({text(label + source)} results)</span></h2>']
    published = published_alpha(con, run_id)
    summary = con.execute(
        "select count(*), count(distinct feature), count(*) filter (where p_value < ?),"
        " count(*) filter (where significant_adjusted), any_value(adjustment_method), any_value(pool_definition),"
        " count(*) filter (where status = 'error')"
        f" from {SUMMARY} where run_id = ? and result_source = ? and result_set = ?",
        [published, run_id, source, result_set],
    ).fetchone()
    n, n_features, n_sig, n_sig_adj, method, pool, n_error = summary
    rule = verdict_rule(con, run_id, method)
    pool_note = f" Pool: {pool}." if pool else ""
    adjusted = f"{n_sig_adj:,} {rule}" if method else "no adjusted p-values (run the recsys_bias job)"
    parts.append(
        f"<p>{text(f'{n:,} tests over {n_features} features: {adjusted}; {as_published(published)}: {n_sig:,}.')}"
        f"{text(pool_note)}{text(f' {n_error} computations failed (see the table).' if n_error else '')}</p>"
    )
    overall = _levels(con, run_id, source, result_set, "all", published=False)
    overall["significance"] = overall["marker"].map(MARKER_LEVELS)
    adjusted = dict(
        con.execute(
            f"select feature, count(*) filter (where significant_adjusted) from {SUMMARY}"
            " where run_id = ? and result_source = ? and result_set = ? group by feature",
            [run_id, source, result_set],
        ).fetchall()
    )
    family = f"{n_sig_adj:,} of {n:,} tests {rule}, result set {result_set}" if method else "no adjusted p-values"
    parts.append(_lead(overall, adjusted, family))
    parts += ["<h3>Fully aggregated</h3>", chart(signed_bias_bar_chart(overall, rule=rule))]
    parts.append("<h3>By prompt style, dataset and model</h3>")
    levels = {}
    for level, title in AGGREGATED_LEVELS.items():
        df = _levels(con, run_id, source, result_set, level, published=False)
        df["signed_label"] = [_label(v, m) for v, m in zip(df["signed_normalized_bias_mean"], df["marker"])]
        parts.append(chart(signed_aggregated_heatmap_chart(df, by=title, rule=rule)))
        as_paper = _levels(con, run_id, source, result_set, level, published=True)
        as_paper["label"] = [_label(v, m) for v, m in zip(as_paper["value"], as_paper["marker"])]
        levels[title] = as_paper
    parts.append("<h3>One heatmap per prompt style</h3>")
    by_prompt, as_paper_by_prompt = [], []
    for published_view, found in ((False, by_prompt), (True, as_paper_by_prompt)):
        conditions = _levels(con, run_id, source, result_set, "dataset_model_prompt", published=published_view)
        conditions["dataset_model"] = conditions["dataset"] + " · " + conditions["provider"]
        # A single condition: * when it is significant (as published: its raw p below the paper's level).
        column = "value" if published_view else "signed_normalized_bias_mean"
        conditions["label" if published_view else "signed_label"] = [
            _label(v, "*" if s > 0 else "") for v, s in zip(conditions[column], conditions["share_significant"])
        ]
        found += list(conditions.groupby("prompt_style", sort=True))
    for prompt_style, df in by_prompt:
        parts.append(chart(signed_condition_heatmap_chart(df, prompt_style=str(prompt_style), rule=rule)))
    parts += _condition_intervals(con, run_id, source, result_set, rule=rule)
    parts += _published_views(con, run_id, source, result_set, levels, as_paper_by_prompt, published=published)
    parts += _raw_results(con, run_id, source, result_set)
    return "".join(parts)


def _condition_intervals(con, run_id: str, source: str, result_set: str, *, rule: str) -> list[str]:
    """Hedges' g of every condition with its interval, as a chart; nothing when no condition has one."""
    intervals = con.execute(
        "select feature, dataset || ' · ' || provider || ' · ' || prompt_style as condition, hedges_g, ci_low,"
        " ci_high, p_value, p_value_adjusted,"
        " case when significant_adjusted then 'significant' else 'not significant' end as significance"
        f" from {SUMMARY} where run_id = ? and result_source = ? and result_set = ?"
        " and ci_low is not null and ci_high is not null order by feature, condition",
        [run_id, source, result_set],
    ).df()
    if not len(intervals):
        return []
    return [
        "<h3>Condition-level intervals</h3>",
        '<p class="note">Hedges\' g of every condition with its '
        "95% normal-approximation interval (numerical features; categorical and binary features have "
        "Cramér's V, without an interval in the mart).</p>",
        chart(condition_interval_chart(intervals, rule=rule)),
    ]


def _published_views(
    con, run_id: str, source: str, result_set: str, levels: dict, as_paper_by_prompt: list, *, published: float
) -> list[str]:
    """The original paper's min-max normalised views (its raw-p markers), folded away under the verdicts."""
    overall_as_paper = _levels(con, run_id, source, result_set, "all", published=True)
    overall_as_paper["significance"] = overall_as_paper["marker"].map(MARKER_LEVELS)
    published_views = [chart(fully_aggregated_bar_chart(overall_as_paper, published_alpha=published))]
    published_views += [
        chart(aggregated_heatmap_chart(df, by=title, published_alpha=published)) for title, df in levels.items()
    ]
    published_views += [
        chart(condition_heatmap_chart(df, prompt_style=str(prompt_style), published_alpha=published))
        for prompt_style, df in as_paper_by_prompt
    ]
    return [
        f"<details><summary>The original's min-max normalised views, {text(as_published(published))}</summary>",
        '<p class="note">Min-max normalisation per feature stretches pure noise over 0-1: a feature with no '
        "significant condition can reach 1.00. Their markers count raw p below the paper's level, unadjusted: "
        "the verdicts above count only tests significant after the adjustment.</p>",
        *published_views,
        "</details>",
    ]


def _raw_results(con, run_id: str, source: str, result_set: str) -> list[str]:
    """Every result row of the result set, in a folded table."""
    rows = con.execute(
        f"select {', '.join(RESULT_COLUMNS)} from {SUMMARY}"
        " where run_id = ? and result_source = ? and result_set = ? order by feature, dataset, provider, prompt_style",
        [run_id, source, result_set],
    ).fetchall()
    # the table formats every value (p columns as p-values): biaswh.dashboards.common.html.table
    formatted = [list(row) for row in rows]
    return [
        f"<details><summary>Raw results ({len(rows):,} rows)</summary>",
        table(RESULT_COLUMNS, formatted),
        "</details>",
    ]


@register_page(
    "recsys.html",
    "Recommendation bias",
    runs=RUNS,
    studies=("studies/demo_recsys.toml", "studies/recsys_paper.toml"),
)
def render(con: duckdb.DuckDBPyConnection, run_id: str | None = None) -> str:
    """One recommendation-bias study run's page: the finding first, then each result set's tables and figures."""
    found = RUNS.latest(con) if run_id is None else (run_id, 1)
    if found is None or not relation_exists(con, *AGGREGATED.split(".")):
        return (
            '<p class="note">No recommendation-bias results yet: <code>biaswh run studies/demo_recsys.toml</code>'
            " or <code>biaswh run studies/recsys_paper.toml</code>, then reload.</p>"
        )
    run_id = found[0]
    result_sets = con.execute(
        f"select distinct result_source, result_set from {SUMMARY} where run_id = ?"
        " order by result_source desc, result_set",
        [run_id],
    ).fetchall()
    synthetic = _synthetic_post_sets(con)
    rule = verdict_rule(con, run_id, None)
    return (
        _intro(rule, as_published(published_alpha(con, run_id)))
        + paper_figures_section(con, run_id, synthetic=frozenset(synthetic))
        + "".join(
            _result_set_section(
                con, run_id, source, result_set, synthetic=source == "computed" and result_set in synthetic
            )
            for source, result_set in result_sets
        )
        + provenance_section(con, run_id)
    )
