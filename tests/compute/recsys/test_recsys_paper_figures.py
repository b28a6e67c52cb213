"""The paper's figure data (figure-data/ of "LLMs as Content Curators") from our marts.

The run of studies/recsys_paper.toml on the published files that docs/studies/recsys.md runs, in the
warehouse of the docs' real-data examples (tests/real_data_examples.py, once per session, read only;
the demo's and recsys_published's recommendation runs are beside it); each test reads this run's
rows of the marts the recommendation page draws and compares them with the published figure file.
Equal means equal up to floating-point summation order (relative 1e-9).
"""

from __future__ import annotations

import csv
import math
import statistics

import duckdb
import pytest

from tests.conftest import shared_file

pytestmark = [pytest.mark.dbt, pytest.mark.real_data]

PROMPTS = ("neutral", "general", "popular", "engaging", "informative", "controversial")
PROVIDER_LABELS = {"anthropic": "Claude Sonnet 4.5", "openai": "GPT-4o-mini", "gemini": "Gemini 2.0 Flash"}
AUTHOR_FEATURES = ("author_gender", "author_is_minority", "author_political_leaning")


def _figure(name: str) -> list[dict]:
    path = shared_file(f"recsys-bias/paper-submitted/figure-data/{name}")
    with open(path, newline="", encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def _equal(ours, published: str) -> bool:
    if published == "":
        return ours is None
    return ours is not None and math.isclose(ours, float(published), rel_tol=1e-9, abs_tol=1e-15)


@pytest.fixture(scope="module")
def home(real_data_examples):
    shared_file("recsys-bias/paper-submitted/pool_vs_recommended_summary.csv")
    return real_data_examples.home


@pytest.fixture(scope="module")
def con(home):
    """(read-only connection, the recsys_paper run's id): every query reads that run's rows only."""
    connection = duckdb.connect(str(home / "warehouse.duckdb"), read_only=True)
    runs = connection.execute(
        "select run_id from raw.runs where kind = 'study' and name = 'recsys_paper' and status = 'succeeded'"
    ).fetchall()
    assert len(runs) == 1, runs
    yield connection, runs[0][0]
    connection.close()


def _rows(con, sql: str, *parameters) -> dict:
    """``{key columns: last column}`` of a query whose last column is the value; its first parameter
    is the recsys_paper run's id."""
    connection, run_id = con
    rows = connection.execute(sql, [run_id, *parameters]).fetchall()
    return {tuple(r[:-1]) if len(r) > 2 else r[0]: r[-1] for r in rows}


def _effect_sizes(con, level: str, column: str) -> dict:
    key = "feature" if level == "all" else "feature, prompt_style"
    return _rows(
        con, f"select {key}, {column} from recsys_effect_sizes_aggregated where run_id = ? and level = ?", level
    )


def _directional(con, level: str, key: str, where: str = "true") -> dict:
    return _rows(
        con,
        f"select {key}, directional_bias_mean from marts.agg_recsys_directional_bias"
        f" where run_id = ? and level = ? and {where}",
        level,
    )


def test_01_mean_r_squared_and_share_significant_equal_the_published_bars(con):
    published = _figure("01_aggregated_r2_bar_plot_data.csv")
    r_squared, share = _effect_sizes(con, "all", "r_squared_mean"), _effect_sizes(con, "all", "share_significant")
    assert set(r_squared) == {row["feature"] for row in published}
    for row in published:
        assert _equal(r_squared[row["feature"]], row["r_squared"]), row
        assert _equal(share[row["feature"]], row["significant"]), row
    n_author = _rows(
        con, "select feature, n_conditions from recsys_effect_sizes_aggregated where run_id = ? and level = 'all'"
    )
    assert n_author["author_gender"] == 18 and n_author["toxicity"] == 54  # author_* on twitter only


def test_02_mean_r_squared_by_prompt_equals_the_published_heatmap(con):
    by_prompt, overall = _effect_sizes(con, "prompt", "r_squared_mean"), _effect_sizes(con, "all", "r_squared_mean")
    for row in _figure("02_bias_by_prompt_heatmap_data.csv"):
        if row["feature"] == "Mean Across Features":
            for prompt in PROMPTS:
                mean = statistics.fmean(v for (_, p), v in by_prompt.items() if p == prompt)
                assert _equal(mean, row[prompt]), prompt
            continue
        for prompt in PROMPTS:
            assert _equal(by_prompt[(row["feature"], prompt)], row[prompt]), (row["feature"], prompt)
        assert _equal(overall[row["feature"]], row["average"])


def test_03_standardised_signed_bias_by_prompt_equals_the_published_heatmap(con):
    ours = _effect_sizes(con, "prompt", "bias_mean_standardized_over_prompts")
    published = _figure("03_bias_by_prompt_normalized_heatmap_data.csv")
    assert len(published) == 13
    for row in published:
        for prompt in PROMPTS:
            assert _equal(ours[(row["feature"], prompt)], row[f"{prompt}_normalized"]), (row["feature"], prompt)


@pytest.mark.parametrize("feature", AUTHOR_FEATURES)
def test_04_author_demographics_on_twitter_equal_the_published_bars(con, feature):
    sql = (
        "select coalesce(provider, 'Average'), category, directional_bias_mean, directional_bias_sd"
        " from marts.agg_recsys_directional_bias"
        " where run_id = ? and level in ('dataset_model', 'dataset') and dataset = 'twitter' and feature = ?"
    )
    connection, run_id = con
    ours = {(r[0], r[1]): r[2:] for r in connection.execute(sql, [run_id, feature]).fetchall()}
    published = _figure(f"04_{feature}_twitter_data.csv")
    assert [row["provider"] for row in published] == ["anthropic", "openai", "gemini", "Average"]
    for row in published:
        categories = [c for c in row if c not in ("dataset", "provider") and not c.endswith("_std")]
        assert len(categories) == len({c for p, c in ours if p == row["provider"]})
        for category in categories:
            mean, sd = ours[(row["provider"], category)]
            if row["provider"] == "Average":  # the mean over twitter, and the SD of the three model means
                sd = statistics.stdev(ours[(p, category)][0] for p in PROVIDER_LABELS)
            assert _equal(mean, row[category]) and _equal(sd, row[f"{category}_std"]), (row["provider"], category)


def test_05_content_safety_by_model_and_prompt_equals_the_published_heatmap(con):
    ours = _directional(con, "model_prompt", "feature, provider, prompt_style")
    published = _figure("05_content_safety_bias_heatmap_data.csv")
    assert len(published) == 54
    for row in published:
        assert PROVIDER_LABELS[row["provider"]] == row["provider_display"]
        assert _equal(ours[(row["feature"], row["provider"], row["prompt_style"])], row["directional_bias"]), row


def test_06_content_safety_per_condition_equals_the_published_bars(con):
    ours = _directional(con, "dataset_model_prompt", "feature, provider, dataset, prompt_style")
    published = _figure("06_content_safety_bars_data.csv")
    assert len(published) == 162
    for row in published:
        key = (row["feature"], row["provider"], row["dataset"], row["prompt_style"])
        assert _equal(ours[key], row["directional_bias"]), row


def test_07_importance_by_model_equals_the_published_heatmap(con):
    display = {row["feature_display"]: row["feature"] for row in _figure("01_aggregated_r2_bar_plot_data.csv")}
    sql = (
        "select coalesce(provider, 'all'), feature, shap_importance_mean_all_datasets"
        " from marts.agg_recsys_feature_importance where run_id = ? and level in ('model', 'all')"
    )
    ours = _rows(con, sql)
    labels = {label: provider for provider, label in PROVIDER_LABELS.items()}
    published = _figure("07_feature_importance_by_model_data.csv")
    assert len(published) == 4
    for row in published:
        provider = labels.get(row[""], "all")  # the last row is the average across models
        for label, feature in display.items():
            assert _equal(ours[(provider, feature)], row[label]), (provider, feature)


def test_08_topic_bias_per_condition_equals_the_published_bars(con):
    key = "dataset, provider, prompt_style, category"
    ours = _directional(con, "dataset_model_prompt", key, "feature = 'primary_topic'")
    published = _figure("08_topic_bias_data.csv")
    assert len(published) == 162
    for row in published:
        key = (row["dataset"], row["provider"], row["prompt_style"], row["category"])
        assert _equal(ours[key], row["directional_bias"]), row


@pytest.mark.parametrize(
    "name, feature",
    [
        ("09a_raw_bias_avg_word_length_by_dataset.csv", "avg_word_length"),
        ("09b_raw_bias_polarization_score_by_dataset.csv", "polarization_score"),
        ("09c_raw_bias_sentiment_polarity_by_dataset.csv", "sentiment_polarity"),
        ("09d_raw_bias_toxicity_by_dataset.csv", "toxicity"),
    ],
)
def test_09_raw_mean_difference_per_condition_equals_the_published_bars(con, name, feature):
    ours = _directional(con, "dataset_model_prompt", "dataset, provider, prompt_style", f"feature = '{feature}'")
    published = _figure(name)
    assert len(published) == 54
    for row in published:
        assert _equal(ours[(row["dataset"], row["provider"], row["prompt_style"])], row["mean_bias"]), row
        assert row["std_bias"] == "" and PROVIDER_LABELS[row["provider"]] == row["provider_label"]


@pytest.mark.parametrize(
    "name, feature",
    [
        ("10_demo_bias_gender_by_model.csv", "author_gender"),
        ("10_demo_bias_is_minority_by_model.csv", "author_is_minority"),
        ("10_demo_bias_political_leaning_by_model.csv", "author_political_leaning"),
    ],
)
def test_10_demographic_bias_by_model_and_prompt_equals_the_published_bars(con, name, feature):
    ours = _directional(con, "model_prompt", "provider, prompt_style, category", f"feature = '{feature}'")
    published = _figure(name)
    assert len(published) == len(ours)
    for row in published:
        assert _equal(ours[(row["provider"], row["prompt_style"], row["category"])], row["mean_bias"]), row


def test_the_recommendation_page_draws_every_figure_and_leads_with_the_finding(home, con):
    page = (home / "site" / "studies" / "recsys_paper.html").read_text(encoding="utf-8")
    for number in ("01", "02 and 03", "04", "05", "06 and 09", "07", "08", "10"):
        assert f"Figure {number}" in page or f"Figures {number}" in page, number
    connection, run_id = con
    top = connection.execute(
        "select feature from recsys_effect_sizes_aggregated where run_id = ? and level = 'all'"
        " order by r_squared_mean desc limit 1",
        [run_id],
    ).fetchone()[0]
    section = page.index("The paper's figures: paper_submitted")
    start = page.index('<p class="verdict">', section)
    lead = page[start : page.index("</p>", start)]
    assert start < page.index("Figure 01", section)
    # The card's verdict (tests significant after Holm within the result set), then each ordering
    # claim with its test: the paper's top feature beats the runner-up in paired conditions.
    assert "5 of 13 features shape what gets recommended" in lead
    assert "319 of 702 tests significant after Holm within result set paper_submitted" in lead
    assert f"<b>{top}</b> explains more variance than the runner-up" in lead
    assert "Wilcoxon signed-rank over 54 conditions" in lead and "Friedman over" in lead and "Holm p" in lead
    assert "the most variance" not in lead


def test_pool_distributions_equal_our_pool_means_to_the_printed_six_decimals(con):
    sql = (
        "select feature, dataset, category, coalesce(prop_pool_mean, mean_pool_mean)"
        " from marts.agg_recsys_directional_bias where run_id = ? and level = 'dataset'"
    )
    connection, run_id = con
    ours = {tuple(r[:3]): r[3] for r in connection.execute(sql, [run_id]).fetchall()}
    compared = 0
    for row in _figure("pool_distributions.csv"):
        if row["feature"].startswith("author_") and row["dataset"] != "twitter":
            continue  # not counted outside twitter (recsys_dataset_only_features); the file lists them anyway
        category = row["category"] if row["feature_type"] == "categorical" else "mean_difference"
        published = float(row["pool_proportion"] or row["pool_mean"])
        assert round(ours[(row["feature"], row["dataset"], category)], 6) == published, row
        compared += 1
    assert compared == 94
