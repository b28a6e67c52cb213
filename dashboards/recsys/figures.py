"""The paper's figures on the recommendation page: R² effect sizes (01-03), directional bias
(04-06, 08-10) and feature importance (07), each from its mart, for the latest run of each result set.

The figure numbers are those of "LLMs as Content Curators"; tests/compute/recsys/
test_recsys_paper_figures.py checks the data behind each against the published figure files.
"""

from __future__ import annotations

import duckdb

from dashboards.common.html import chart, text
from dashboards.common.queries import relation_exists
from dashboards.recsys.charts import MARKER_LEVELS
from dashboards.recsys.figure_charts import (
    demographic_bar_chart,
    directional_heatmap_chart,
    importance_heatmap_chart,
    prompt_heatmap_chart,
    r_squared_bar_chart,
)

EFFECT_SIZES = "agg_recsys_effect_sizes"
DIRECTIONAL = "agg_recsys_directional_bias"
IMPORTANCE = "agg_recsys_feature_importance"
CONTENT_SAFETY = ("polarization_score", "sentiment_polarity", "toxicity")
RAW_BIAS = ("avg_word_length", "polarization_score", "sentiment_polarity", "toxicity")


def _latest_runs(con, mart: str) -> list[tuple[str, str, str]]:
    """(result source, result set, run id) of the latest run holding each result set in ``mart``."""
    if not relation_exists(con, "marts", mart):
        return []
    return con.execute(
        f"select result_source, result_set, arg_max(runs.run_id, runs.started_at) from marts.{mart} as results"
        " inner join marts.dim_runs as runs on results.run_id = runs.run_id group by all order by all"
    ).fetchall()


def _rows(con, mart: str, run_id: str, result_set: str, level: str, where: str = "true", params=()):
    return con.execute(
        f"select * from marts.{mart} where run_id = ? and result_set = ? and level = ? and {where}",
        [run_id, result_set, level, *params],
    ).df()


def _effect_size_figures(con, run_id: str, result_set: str) -> list[str]:
    overall = _rows(con, EFFECT_SIZES, run_id, result_set, "all").sort_values("r_squared_mean", ascending=False)
    if overall.empty:
        return []
    overall["significance"] = overall["marker"].map(MARKER_LEVELS)
    top = overall.iloc[0]
    consistent = overall[overall["marker"] == "***"]["feature"].tolist()
    by_prompt = _rows(con, EFFECT_SIZES, run_id, result_set, "prompt")
    prompt_means = by_prompt.groupby("prompt_style")["r_squared_mean"].mean().sort_values()
    lead = (
        f"<b>{text(top.feature)}</b> explains the most variance between recommended posts and the pool "
        f"(mean R² {top.r_squared_mean:.3f}, p &lt; 0.05 in {top.share_significant:.0%} of "
        f"{top.n_conditions} conditions). {len(consistent)} of {len(overall)} features are significant in more "
        f"than 75 % of their conditions ({text(', '.join(consistent)) or 'none'}). Every effect is small: the "
        f"largest mean R² is {overall['r_squared_mean'].max():.1%} of variance. By prompt style, "
        f"<b>{text(prompt_means.index[-1])}</b> prompts bias selection most (mean R² over features "
        f"{prompt_means.iloc[-1]:.4f}) and <b>{text(prompt_means.index[0])}</b> least ({prompt_means.iloc[0]:.4f})."
    )
    return [
        f'<p class="verdict">{lead}</p>',
        "<h4>Figure 01: effect size per feature</h4>",
        chart(r_squared_bar_chart(overall)),
        "<h4>Figures 02 and 03: by prompt style</h4>",
        chart(
            prompt_heatmap_chart(
                by_prompt, value="r_squared_mean", title="Mean R² by prompt style", legend="mean R²", diverging=False
            )
        ),
        chart(
            prompt_heatmap_chart(
                by_prompt,
                value="bias_mean_standardized_over_prompts",
                title="Mean signed bias by prompt style, standardised over prompt styles per feature",
                legend="z over prompt styles",
                diverging=True,
            )
        ),
    ]


def _heatmap(df, x: str, x_title: str, y: str, y_title: str, title: str):
    return directional_heatmap_chart(df, x=x, x_title=x_title, y=y, y_title=y_title, title=title)


def _directional_figures(con, run_id: str, result_set: str) -> list[str]:
    parts = []
    twitter = _rows(con, DIRECTIONAL, run_id, result_set, "dataset_model", "feature like 'author_%'")
    twitter = twitter[twitter["dataset"] == "twitter"]
    if len(twitter):
        parts.append("<h4>Figure 04: author demographics (twitter)</h4>")
        parts += [chart(demographic_bar_chart(df, feature=str(f))) for f, df in twitter.groupby("feature")]
    by_model = _rows(con, DIRECTIONAL, run_id, result_set, "model_prompt")
    by_model["model_prompt"] = by_model["provider"] + " · " + by_model["prompt_style"]
    by_model["feature_category"] = by_model["feature"] + ": " + by_model["category"]
    for number, features, title in (
        ("05", CONTENT_SAFETY, "Content safety: mean difference by model and prompt style (over datasets)"),
        ("10", None, "Author demographics: share recommended − share in pool by model and prompt style"),
    ):
        authors = by_model["feature"].str.startswith("author_")
        df = by_model[by_model["feature"].isin(features)] if features else by_model[authors]
        if len(df):
            y = "feature" if features else "feature_category"
            parts += [
                f"<h4>Figure {number}</h4>",
                chart(_heatmap(df, "model_prompt", "model · prompt style", y, y.replace("_", " "), title)),
            ]
    conditions = _rows(con, DIRECTIONAL, run_id, result_set, "dataset_model_prompt")
    conditions["dataset_model"] = conditions["dataset"] + " · " + conditions["provider"]
    continuous = [f for f in RAW_BIAS if f in set(conditions["feature"])]
    if continuous:
        parts.append("<h4>Figures 06 and 09: mean difference per condition</h4>")
    for feature in continuous:
        df = conditions[conditions["feature"] == feature]
        title = f"{feature}: mean recommended − mean pool"
        parts.append(chart(_heatmap(df, "prompt_style", "prompt style", "dataset_model", "dataset · model", title)))
    topics = conditions[conditions["feature"] == "primary_topic"]
    if len(topics):
        overall = _rows(con, DIRECTIONAL, run_id, result_set, "all", "feature = 'primary_topic'")
        top = overall.assign(size=overall["directional_bias_mean"].abs()).nlargest(3, "size")["category"].tolist()
        parts.append("<h4>Figure 08: the three topics with the largest mean bias, per condition</h4>")
        for category in top:
            df = topics[topics["category"] == category]
            title = f"topic {category}: share recommended − share in pool"
            parts.append(chart(_heatmap(df, "prompt_style", "prompt style", "dataset_model", "dataset · model", title)))
    return parts


def _importance_figure(con, run_id: str, result_set: str) -> list[str]:
    df = con.execute(
        f"select feature, coalesce(provider, 'average over models') as model,"
        f" shap_importance_mean_all_datasets as shap, permutation_importance_mean_all_datasets as permutation,"
        f" auroc_mean from marts.{IMPORTANCE} where run_id = ? and result_set = ? and level in ('model', 'all')",
        [run_id, result_set],
    ).df()
    if df.empty:
        return []
    shap = df["shap"].notna().any()
    df["importance"] = df["shap"] if shap else df["permutation"]
    measure = (
        "mean |SHAP| (as published)"
        if shap
        else "permutation importance (drop in held-out ROC AUC when the feature is shuffled)"
    )
    auroc = df["auroc_mean"].mean()
    return [
        "<h4>Figure 07: feature importance by model</h4>",
        f'<p class="note">{text(measure)} of a random forest predicting selection, averaged over every dataset '
        f"as the paper does; the classifiers' mean cross-validated AUROC is {auroc:.3f} (0.5 = chance).</p>",
        chart(importance_heatmap_chart(df, legend="mean |SHAP|" if shap else "permutation importance")),
    ]


def paper_figures_section(con: duckdb.DuckDBPyConnection, *, synthetic: frozenset[str] = frozenset()) -> str:
    """The paper's figures for every result set with R², directional-bias or importance results ('' if none);
    computed result sets named in ``synthetic`` are labelled as simulated."""
    sets: dict[tuple[str, str], dict[str, str]] = {}
    for mart in (EFFECT_SIZES, DIRECTIONAL, IMPORTANCE):
        for source, result_set, run_id in _latest_runs(con, mart):
            sets.setdefault((source, result_set), {})[mart] = run_id
    parts = []
    for (source, result_set), runs in sorted(sets.items()):
        body = []
        if EFFECT_SIZES in runs:
            body += _effect_size_figures(con, runs[EFFECT_SIZES], result_set)
        if DIRECTIONAL in runs:
            body += _directional_figures(con, runs[DIRECTIONAL], result_set)
        if IMPORTANCE in runs:
            body += _importance_figure(con, runs[IMPORTANCE], result_set)
        if body:
            label = "SYNTHETIC data, simulated; " if source == "computed" and result_set in synthetic else ""
            parts += [f"<h3>The paper's figures: {text(result_set)} ({text(label + source)})</h3>", *body]
    return "".join(parts)
