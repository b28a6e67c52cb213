"""Dashboard page: which post features LLM recommenders favour, how strongly and how consistently."""

from __future__ import annotations

import duckdb

from dashboards.common.html import chart, table, text
from dashboards.common.provenance import provenance_section
from dashboards.common.queries import number, relation_exists
from dashboards.common.site import register_page
from dashboards.recsys.charts import (
    MARKER_LEVELS,
    aggregated_heatmap_chart,
    condition_heatmap_chart,
    condition_interval_chart,
    fully_aggregated_bar_chart,
    signed_aggregated_heatmap_chart,
    signed_bias_bar_chart,
    signed_condition_heatmap_chart,
)
from dashboards.recsys.figures import paper_figures_section
from stats.multiple_comparisons import ADJUSTMENT_NAMES

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
INTRO = (
    '<p class="note">Each condition (dataset × model × prompt style) compares the posts a model recommended '
    "with the pool it was shown. Numerical features: Cohen's d (recommended minus pool, pooled SD) and Welch's "
    "t-test; categorical and binary features: Cramér's V and the chi-square test (Yates' correction on 2×2 "
    "tables). The heatmaps colour the signed bias (bias / max |bias| per feature, -1 to 1: red, the model "
    "favours higher values or the category mix differs; blue, lower) on a diverging scale around 0, and grey out "
    "cells whose conditions are not mostly significant, so noise is not painted. The original's min-max views, "
    'which stretch noise over 0-1, stay available below each result set, labelled "as published". '
    "Markers give the share of the underlying conditions with p &lt; 0.05: * above 50 %, ** above 60 %, "
    "*** above 75 % (raw p, as the original; the table also gives the adjusted p). The verdict above the "
    "charts counts only tests significant after the adjustment within the result set (the family: every "
    "feature × condition of one recommendation run; Holm unless the study configures BH).</p>"
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


def _levels(con, source: str, result_set: str, level: str):
    """One aggregation level of a result set; ``value`` is what the heatmaps colour."""
    return con.execute(
        "select feature, group_value, dataset, provider, prompt_style, normalized_bias_mean as value, bias_mean,"
        " share_significant, n_conditions, marker, normalized_bias_mean, signed_normalized_bias_mean"
        " from marts.agg_recsys_bias where result_source = ? and result_set = ? and level = ?"
        " order by feature, group_value",
        [source, result_set, level],
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


def _result_set_section(con, source: str, result_set: str, *, synthetic: bool) -> str:
    label = "SYNTHETIC data, simulated with injected biases; " if synthetic else ""
    parts = [f'<h2>{text(result_set)} <span class="note">({text(label + source)} results)</span></h2>']
    summary = con.execute(
        "select count(*), count(distinct feature), count(*) filter (where p_value < 0.05),"
        " count(*) filter (where significant_adjusted), any_value(adjustment_method), any_value(pool_definition),"
        " count(*) filter (where status = 'error')"
        " from marts.fct_recsys_pool_vs_recommended where result_source = ? and result_set = ?",
        [source, result_set],
    ).fetchone()
    n, n_features, n_sig, n_sig_adj, method, pool, n_error = summary
    pool_note = f" Pool: {pool}." if pool else ""
    adjusted = (
        f"; {n_sig_adj:,} stay significant after {method} adjustment over the {n:,} tests"
        if method
        else "; no adjusted p-values (run the recsys_bias job)"
    )
    parts.append(
        f"<p>{text(f'{n:,} tests over {n_features} features: {n_sig:,} with raw p < 0.05{adjusted}.')}"
        f"{text(pool_note)}{text(f' {n_error} computations failed (see the table).' if n_error else '')}</p>"
    )
    overall = _levels(con, source, result_set, "all")
    overall["significance"] = overall["marker"].map(MARKER_LEVELS)
    adjusted = dict(
        con.execute(
            "select feature, count(*) filter (where significant_adjusted) from marts.fct_recsys_pool_vs_recommended"
            " where result_source = ? and result_set = ? group by feature",
            [source, result_set],
        ).fetchall()
    )
    family = (
        f"{n_sig_adj:,} of {n:,} tests significant after {ADJUSTMENT_NAMES.get(method, method)} within result set "
        f"{result_set}"
        if method
        else "no adjusted p-values"
    )
    parts.append(_lead(overall, adjusted, family))
    parts += ["<h3>Fully aggregated</h3>", chart(signed_bias_bar_chart(overall))]
    parts.append("<h3>By prompt style, dataset and model</h3>")
    levels = {}
    for level, title in AGGREGATED_LEVELS.items():
        df = _levels(con, source, result_set, level)
        df["label"] = [_label(v, m) for v, m in zip(df["value"], df["marker"])]
        df["signed_label"] = [_label(v, m) for v, m in zip(df["signed_normalized_bias_mean"], df["marker"])]
        levels[title] = df
        parts.append(chart(signed_aggregated_heatmap_chart(df, by=title)))
    parts.append("<h3>One heatmap per prompt style</h3>")
    conditions = _levels(con, source, result_set, "dataset_model_prompt")
    conditions["dataset_model"] = conditions["dataset"] + " · " + conditions["provider"]
    # A single condition: * when its p < 0.05, as the original's disaggregated heatmaps.
    conditions["label"] = [
        _label(v, "*" if s > 0 else "") for v, s in zip(conditions["value"], conditions["share_significant"])
    ]
    conditions["signed_label"] = [
        _label(v, "*" if s > 0 else "")
        for v, s in zip(conditions["signed_normalized_bias_mean"], conditions["share_significant"])
    ]
    by_prompt = list(conditions.groupby("prompt_style", sort=True))
    for prompt_style, df in by_prompt:
        parts.append(chart(signed_condition_heatmap_chart(df, prompt_style=str(prompt_style))))
    intervals = con.execute(
        "select feature, dataset || ' · ' || provider || ' · ' || prompt_style as condition, hedges_g, ci_low,"
        " ci_high, p_value, case when p_value < 0.05 then 'p < 0.05' else 'p ≥ 0.05' end as significance"
        " from marts.fct_recsys_pool_vs_recommended where result_source = ? and result_set = ?"
        " and ci_low is not null and ci_high is not null order by feature, condition",
        [source, result_set],
    ).df()
    if len(intervals):
        parts += [
            "<h3>Condition-level intervals</h3>",
            '<p class="note">Hedges\' g of every condition with its '
            "95% normal-approximation interval (numerical features; categorical and binary features have "
            "Cramér's V, without an interval in the mart).</p>",
            chart(condition_interval_chart(intervals)),
        ]
    published = [chart(fully_aggregated_bar_chart(overall))]
    published += [chart(aggregated_heatmap_chart(df, by=title)) for title, df in levels.items()]
    published += [chart(condition_heatmap_chart(df, prompt_style=str(prompt_style))) for prompt_style, df in by_prompt]
    parts += [
        "<details><summary>As published: the original's min-max normalised views</summary>",
        '<p class="note">Min-max normalisation per feature stretches pure noise over 0-1: a feature with no '
        "significant condition can reach 1.00. Read with the markers.</p>",
        *published,
        "</details>",
    ]
    rows = con.execute(
        f"select {', '.join(RESULT_COLUMNS)} from marts.fct_recsys_pool_vs_recommended"
        " where result_source = ? and result_set = ? order by feature, dataset, provider, prompt_style",
        [source, result_set],
    ).fetchall()
    formatted = [[number(v) if isinstance(v, float) else v for v in row] for row in rows]
    parts += [
        f"<details><summary>Raw results ({len(rows):,} rows)</summary>",
        table(RESULT_COLUMNS, formatted),
        "</details>",
    ]
    return "".join(parts)


@register_page("recsys.html", "Recommendation bias")
def render(con: duckdb.DuckDBPyConnection) -> str:
    """The recommendation-bias page body: the finding first, then the tables and figures."""
    if not relation_exists(con, "marts", "agg_recsys_bias"):
        return (
            '<p class="note">No recommendation-bias results yet: <code>biaswh run studies/demo_recsys.toml</code>'
            " or <code>biaswh run studies/recsys_paper.toml</code>, then reload.</p>"
        )
    result_sets = con.execute(
        "select distinct result_source, result_set from marts.fct_recsys_pool_vs_recommended"
        " order by result_source desc, result_set"
    ).fetchall()
    if not result_sets:
        return INTRO + '<p class="note">No recommendation-bias results loaded in this warehouse.</p>'
    synthetic = _synthetic_post_sets(con)
    # the run each result set's sections show: its latest
    runs = [
        r[0]
        for r in con.execute(
            "select distinct arg_max(s.run_id, r.started_at) from marts.fct_recsys_pool_vs_recommended s"
            " join marts.dim_runs r using (run_id) group by s.result_source, s.result_set order by 1"
        ).fetchall()
    ]
    return (
        INTRO
        + paper_figures_section(con, synthetic=frozenset(synthetic))
        + "".join(
            _result_set_section(con, source, result_set, synthetic=source == "computed" and result_set in synthetic)
            for source, result_set in result_sets
        )
        + "".join(provenance_section(con, run_id, heading=f"Provenance of run {run_id[:12]}") for run_id in runs)
    )
