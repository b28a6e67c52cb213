"""Directional bias and feature importance computed from post-level data, through the real CLI.

A hand-made post set (one condition: 12 recommended of 40 shown posts) runs the recsys_bias and
recsys_feature_importance jobs; the marts' directional bias, its denominators and intervals are
checked against numpy and statsmodels, and the importance rows against their definition.
"""

from __future__ import annotations

import csv

import duckdb
import numpy as np
import pytest
from statsmodels.stats.proportion import confint_proportions_2indep
from statsmodels.stats.weightstats import CompareMeans, DescrStatsW

from tests.conftest import run_study_here

pytestmark = pytest.mark.dbt

RNG = np.random.default_rng(20261122)
SELECTED = np.array([1] * 12 + [0] * 28, dtype=bool)
LENGTH = np.round(np.where(SELECTED, RNG.normal(60, 8, 40), RNG.normal(45, 8, 40)), 1)
TOPIC = np.array(["politics"] * 7 + ["sports"] * 3 + ["tech"] * 2 + ["politics"] * 6 + ["sports"] * 12 + ["tech"] * 10)
LINK = np.array([1] * 8 + [0] * 4 + [1] * 9 + [0] * 19)


@pytest.fixture(scope="module")
def con(tmp_path_factory):
    folder = tmp_path_factory.mktemp("recsys_directional")
    posts, features = folder / "posts.csv", folder / "features.csv"
    with open(posts, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        header = ["post_id", "dataset", "provider", "prompt_style", "selected", "text_length", "topic", "has_link"]
        writer.writerow(header)
        for i in range(40):
            writer.writerow([f"p{i}", "twitter", "hand", "general", int(SELECTED[i]), LENGTH[i], TOPIC[i], LINK[i]])
    features.write_text("feature,type\ntext_length,numerical\ntopic,categorical\nhas_link,binary\n", encoding="utf-8")
    study = folder / "study.toml"
    study.write_text(
        '[study]\nname = "directional_test"\nseed = 7\njobs = ["recsys_bias", "recsys_feature_importance"]\n\n'
        f'[[ingest]]\nsource = "recsys_posts"\npath = "{posts}"\nfeatures_path = "{features}"\nname = "hand"\n\n'
        "[recsys_importance]\ntrees = 20\nfolds = 3\nrepeats = 2\n",
        encoding="utf-8",
    )
    home = folder / "warehouse"
    run_study_here(str(study), home=home, site=False)  # rows only: no site drawn
    connection = duckdb.connect(str(home / "warehouse.duckdb"), read_only=True)
    yield connection
    connection.close()


def _condition_rows(con) -> dict:
    rows = con.execute(
        "select feature, category, * from marts.agg_recsys_directional_bias"
        " where level = 'dataset_model_prompt' and result_set = 'hand'"
    ).df()
    return {(r["feature"], r["category"]): r for r in rows.to_dict("records")}


def test_category_shares_use_every_shown_post_as_the_pool_with_scaled_wald_intervals(con):
    rows = _condition_rows(con)
    n_rec, n_pool = 12, 40
    for topic in ("politics", "sports", "tech"):
        k_rec, k_pool = int(np.sum(TOPIC[SELECTED] == topic)), int(np.sum(TOPIC == topic))
        row = rows[("topic", topic)]
        assert (row["n_recommended"], row["n_pool"], row["feature_type"]) == (n_rec, n_pool, "categorical")
        assert row["prop_recommended_mean"] == pytest.approx(k_rec / n_rec, abs=1e-12)
        assert row["prop_pool_mean"] == pytest.approx(k_pool / n_pool, abs=1e-12)
        assert row["directional_bias_mean"] == pytest.approx(k_rec / n_rec - k_pool / n_pool, abs=1e-12)
        low, high = confint_proportions_2indep(
            k_rec, n_rec, k_pool - k_rec, n_pool - n_rec, method="wald", compare="diff"
        )
        scale = (n_pool - n_rec) / n_pool  # recommended - pool = scale * (recommended - others)
        assert (row["ci_low"], row["ci_high"]) == (pytest.approx(scale * low), pytest.approx(scale * high))
    assert rows[("topic", "politics")]["directional_bias_mean"] > 0


@pytest.mark.parametrize("feature, values", [("text_length", LENGTH), ("has_link", LINK.astype(float))])
def test_numerical_and_binary_features_give_mean_and_standardised_differences(con, feature, values):
    row = _condition_rows(con)[(feature, "mean_difference")]
    recommended, others = values[SELECTED], values[~SELECTED]
    difference = recommended.mean() - values.mean()
    assert row["feature_type"] == "continuous"
    assert row["directional_bias_mean"] == pytest.approx(difference, abs=1e-9)
    assert row["std_diff_mean"] == pytest.approx(difference / values.std(ddof=1), rel=1e-9)
    low, high = CompareMeans(DescrStatsW(recommended), DescrStatsW(others)).zconfint_diff(usevar="unequal")
    scale = len(others) / len(values)
    assert (row["ci_low"], row["ci_high"]) == (pytest.approx(scale * low), pytest.approx(scale * high))
    assert row["std_diff_ci_low"] == pytest.approx(scale * low / values.std(ddof=1))


def test_importance_is_computed_per_condition_and_aggregated(con):
    raw = con.execute(
        "select feature, status, n_samples, n_positive, n_folds, auroc, impurity_importance, seed"
        " from raw.recsys_computed_feature_importance order by feature"
    ).fetchall()
    assert [r[0] for r in raw] == ["has_link", "text_length", "topic"]
    assert all(r[1:5] == ("ok", 40, 12, 3) and 0 <= r[5] <= 1 for r in raw)
    assert sum(r[6] for r in raw) == pytest.approx(1.0)  # impurity importances of a forest sum to 1
    assert len({r[7] for r in raw}) == 1
    overall = dict(
        con.execute(
            "select feature, permutation_importance_mean from marts.agg_recsys_feature_importance"
            " where level = 'all' and result_set = 'hand'"
        ).fetchall()
    )
    assert max(overall, key=overall.get) == "text_length"  # the recommended posts are clearly longer
