"""The paper's figures on the recommendation page: R² effect sizes (01-03), directional bias
(04-06, 08-10) and feature importance (07), each from its mart, for the result sets of one run.

The figure numbers are those of "LLMs as Content Curators"; tests/compute/recsys/
test_recsys_paper_figures.py checks the data behind each against the published figure files.
"""

from __future__ import annotations

import duckdb

from biaswh.dashboards.common.format import p_value
from biaswh.dashboards.common.html import chart, text
from biaswh.dashboards.common.queries import query_dicts, relation_exists
from biaswh.dashboards.common.verdict_policy import recorded_policy, run_parameters
from biaswh.dashboards.recsys.card import (
    DIRECTIONAL,
    EFFECT_SIZES,
    FEATURES,
    IMPORTANCE,
    published_alpha,
    recsys_verdict,
    verdict_rule,
)
from biaswh.dashboards.recsys.charts import MARKER_LEVELS, as_published
from biaswh.dashboards.recsys.figure_charts import (
    demographic_bar_chart,
    directional_heatmap_chart,
    importance_heatmap_chart,
    prompt_heatmap_chart,
    r_squared_bar_chart,
)
from biaswh.stats.effect_sizes import magnitude
from biaswh.stats.multiple_comparisons import VerdictPolicy, adjust_p_values, is_significant
from biaswh.stats.ordering import friedman, paired_wilcoxon
from biaswh.warehouse.runs.parameters import parameter_defaults
from biaswh.warehouse.settings.random_seeds import derive_seed

CONTENT_SAFETY = ("polarization_score", "sentiment_polarity", "toxicity")
RAW_BIAS = ("avg_word_length", "polarization_score", "sentiment_polarity", "toxicity")


def _result_sets(con, mart: str, run_id: str) -> list[tuple[str, str]]:
    """(result source, result set) of each result set run ``run_id`` holds in ``mart``."""
    if not relation_exists(con, *mart.split(".")):
        return []
    return con.execute(
        f"select distinct result_source, result_set from {mart} where run_id = ? order by all", [run_id]
    ).fetchall()


def _rows(con, mart: str, run_id: str, result_set: str, level: str, where: str = "true", params=()):
    return con.execute(
        f"select * from {mart} where run_id = ? and result_set = ? and level = ? and {where}",
        [run_id, result_set, level, *params],
    ).df()


def _marker(share: float, thresholds: dict) -> str:
    """The original's marker of a share of significant conditions (dbt's significance_marker, the run's thresholds)."""
    for marker, name in (("***", "three_stars"), ("**", "two_stars"), ("*", "one_star")):
        if share > thresholds[name]:
            return marker
    return ""


def _marker_thresholds(con, run_id: str) -> dict:
    defaults, recorded = parameter_defaults(), run_parameters(con, run_id)
    return {
        name: float(recorded.get(f"recsys_marker_{name}", defaults[f"recsys_marker_{name}"]))
        for name in ("one_star", "two_stars", "three_stars")
    }


def _claim(result, adjusted_p: float, adjustment: str) -> str:
    """A test behind an ordering claim, as every p-value is shown: test, n, effect with interval, adjusted p."""
    return (
        f"{result.test.replace('wilcoxon', 'Wilcoxon signed-rank').replace('friedman', 'Friedman')} over "
        f"{result.n} {'conditions' if result.test == 'wilcoxon' else 'feature × dataset × model blocks'}, "
        f"{result.effect_name.split(' (')[0]} {result.effect_size:.2f} [{result.ci_low:.2f}, {result.ci_high:.2f}], "
        f"{adjustment} p {p_value(adjusted_p, equals=True)}"
    )


def _ordering_claims(overall, conditions, *, result_set: str, policy: VerdictPolicy) -> str:
    """Which feature explains the most variance and which prompt style biases selection most, each
    said only as far as its test carries it. The family: these two claims of the result set (the
    study's verdict policy)."""
    tests, sentences = {}, {}
    per_condition = conditions.pivot_table(
        index=["dataset", "provider", "prompt_style"], columns="feature", values="r_squared_mean"
    )
    top, runner_up = overall["feature"].iloc[0], overall["feature"].iloc[1] if len(overall) > 1 else None
    if runner_up is not None and {top, runner_up} <= set(per_condition.columns):
        paired = per_condition[[top, runner_up]].dropna()
        if len(paired) >= 2:
            seed = derive_seed(0, result_set, "largest R²")
            tests["feature"] = paired_wilcoxon(paired[top], paired[runner_up], seed=seed)
    by_style = conditions.pivot_table(
        index=["feature", "dataset", "provider"], columns="prompt_style", values="r_squared_mean"
    ).dropna()
    if by_style.shape[1] >= 3 and len(by_style) >= 2:
        tests["prompt"] = friedman(by_style.to_numpy(), seed=derive_seed(0, result_set, "prompt styles"))
    adjusted = dict(zip(tests, adjust_p_values([t.p_value for t in tests.values()], method=policy.method)))
    if "feature" in tests:
        test, p = tests["feature"], adjusted["feature"]
        larger = is_significant(p, policy.alpha) and test.effect_size > 0
        sentences["feature"] = (
            f"<b>{text(top)}</b> explains more variance than the runner-up {text(runner_up)}"
            if larger
            else f"No evidence that {text(top)} (largest observed mean R²) explains more variance than "
            f"{text(runner_up)}"
        ) + f" ({_claim(test, p, policy.name)})."
    if "prompt" in tests:
        test, p = tests["prompt"], adjusted["prompt"]
        means = by_style.mean().sort_values()
        sentences["prompt"] = (
            "Prompt styles differ in how much they bias selection"
            if is_significant(p, policy.alpha)
            else "No evidence that prompt styles differ in how much they bias selection"
        ) + (
            f" ({_claim(test, p, policy.name)}; observed mean R² highest for {text(means.index[-1])}, "
            f"{means.iloc[-1]:.4f}, "
            f"lowest for {text(means.index[0])}, {means.iloc[0]:.4f})."
        )
    return " ".join(sentences.values())


def _effect_size_figures(con, run_id: str, result_set: str) -> list[str]:
    overall = _rows(con, EFFECT_SIZES, run_id, result_set, "all").sort_values("r_squared_mean", ascending=False)
    if overall.empty:
        return []
    policy = recorded_policy(con, run_id)
    features = [r for r in query_dicts(con, FEATURES, [run_id, run_id]) if r["result_set"] == result_set]
    # as published: the original's markers (raw p below the paper's level), beside the verdicts' own
    published = overall.assign(significance=overall["marker"].map(MARKER_LEVELS))
    # the default markers are the verdicts': the share of a feature's conditions significant after the
    # adjustment, the very counts the headline names a feature by (more than half: at least '*')
    thresholds = _marker_thresholds(con, run_id)
    adjusted = {r["feature"]: r["n_significant_adjusted"] / r["n_conditions"] for r in features if r["n_conditions"]}
    overall = overall.assign(share_significant=[adjusted.get(f, 0.0) for f in overall["feature"]])
    overall["marker"] = [_marker(share, thresholds) for share in overall["share_significant"]]
    overall["significance"] = overall["marker"].map(MARKER_LEVELS)
    by_prompt = _rows(con, EFFECT_SIZES, run_id, result_set, "prompt")
    conditions = _rows(con, EFFECT_SIZES, run_id, result_set, "dataset_model_prompt")
    verdict = recsys_verdict(features, alpha=policy.alpha)
    rule = verdict_rule(con, run_id)
    largest = overall["r_squared_mean"].max()
    size = f"The largest mean R² is {largest:.1%} of variance ({magnitude(largest, statistic='r_squared')}). "
    # the card's verdict names the largest effect when features are flagged
    lead = f"{verdict} {'' if 'largest observed effect' in verdict else size}"
    lead += _ordering_claims(overall, conditions, result_set=result_set, policy=policy)
    paper_rule = as_published(published_alpha(con, run_id))
    return [
        f'<p class="verdict">{lead}</p>',
        "<h4>Figure 01: effect size per feature</h4>",
        chart(r_squared_bar_chart(overall, rule=rule)),
        f"<details><summary>Figure 01 {text(paper_rule)}</summary>",
        '<p class="note">The paper\'s markers count raw p, unadjusted, so they flag more features than the '
        "verdict above, which counts only tests significant after the adjustment.</p>",
        chart(r_squared_bar_chart(published, rule=paper_rule)),
        "</details>",
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
        f" auroc_mean from {IMPORTANCE} where run_id = ? and result_set = ? and level in ('model', 'all')",
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


def paper_figures_section(
    con: duckdb.DuckDBPyConnection, run_id: str, *, synthetic: frozenset[str] = frozenset()
) -> str:
    """The paper's figures for every result set of run ``run_id`` with R², directional-bias or
    importance results ('' if none); computed result sets named in ``synthetic`` are labelled as simulated."""
    sets: dict[tuple[str, str], set[str]] = {}
    for mart in (EFFECT_SIZES, DIRECTIONAL, IMPORTANCE):
        for source, result_set in _result_sets(con, mart, run_id):
            sets.setdefault((source, result_set), set()).add(mart)
    parts = []
    for (source, result_set), marts in sorted(sets.items()):
        body = []
        if EFFECT_SIZES in marts:
            body += _effect_size_figures(con, run_id, result_set)
        if DIRECTIONAL in marts:
            body += _directional_figures(con, run_id, result_set)
        if IMPORTANCE in marts:
            body += _importance_figure(con, run_id, result_set)
        if body:
            label = "SYNTHETIC data, simulated; " if source == "computed" and result_set in synthetic else ""
            parts += [f"<h3>The paper's figures: {text(result_set)} ({text(label + source)})</h3>", *body]
    return "".join(parts)
