"""The whole chain through the real CLI: ingest, dbt build, recsys_bias job, dbt build, dashboards.

One warehouse (fixture ``recsys_warehouse``, tests/compute/recsys/conftest.py) holds the synthetic
demo post set (simulated with the demo's spec and seed), a tiny hostile result set (for escaping),
a hand-checked post set (test_recsys_hand_checked.py) and, where ../shared/data is present, the 864
published rows. SQL results are checked against Python recomputations.
"""

from __future__ import annotations

import json
import re

import duckdb
import numpy as np
import polars as pl
import pytest
from statsmodels.stats.multitest import multipletests

from biaswh.warehouse.settings.random_seeds import derive_seed
from tests.compute.recsys.recsys_study import HOSTILE, PUBLISHED
from tests.conftest import shared_file

pytestmark = pytest.mark.dbt

MARKERS = ((0.75, "***"), (0.6, "**"), (0.5, "*"))


def _marker(share: float) -> str:
    return next((m for threshold, m in MARKERS if share > threshold), "")


@pytest.fixture
def con(recsys_warehouse):
    connection = duckdb.connect(str(recsys_warehouse[0] / "warehouse.duckdb"), read_only=True)
    yield connection
    connection.close()


def _aggregated(con, result_set: str, level: str) -> dict:
    rows = con.execute(
        "select feature, group_value, normalized_bias_mean, share_significant, marker, bias_mean"
        " from marts.agg_recsys_bias where result_set = ? and level = ?",
        [result_set, level],
    ).fetchall()
    return {(r[0], r[1]): r[2:] for r in rows}


def test_the_injected_biases_are_recovered_through_the_whole_pipeline(con, recsys_warehouse):
    assert "192 computed tests (0 failed" in recsys_warehouse[1]  # 189 simulated + 3 hand-checked
    overall = {feature: values for (feature, _), values in _aggregated(con, "synthetic_demo", "all").items()}
    _, share, marker, bias_mean = overall["text_length"]
    assert marker == "***" and bias_mean == pytest.approx(0.3, abs=0.05)
    assert overall["primary_topic"][2] in ("*", "**", "***")
    for feature in ("sentiment_polarity", "toxicity", "author_gender", "has_emoji", "has_url"):
        assert overall[feature][2] == "", feature
    counts = con.execute(
        "select count(*), count(*) filter (where status = 'ok'), min(n_recommended),"
        " max(n_pool), any_value(pool_definition) from marts.fct_recsys_pool_vs_recommended"
        " where result_set = 'synthetic_demo'"
    ).fetchone()
    assert counts == (189, 189, 200, 600, "non_recommended")
    parameters = json.loads(
        con.execute("select parameters from raw.runs where kind = 'ingest_recsys_posts'").fetchone()[0]
    )
    assert parameters["provenance"]["synthetic"] is True
    assert parameters["provenance"]["simulation_seed"] == derive_seed(
        20261122, "recsys", "simulation", "synthetic_demo"
    )


@pytest.mark.parametrize("result_set", ["synthetic_demo", "hostile_results"])
def test_sql_normalisation_and_levels_match_a_python_recomputation(con, result_set):
    df = con.execute("select * from marts.fct_recsys_pool_vs_recommended where result_set = ?", [result_set]).pl()
    ranges = df.group_by("feature").agg(
        pl.col("bias").min().alias("lo"), pl.col("bias").max().alias("hi"), pl.col("bias").abs().max().alias("top")
    )
    df = df.join(ranges, on="feature").with_columns(
        pl.when((pl.col("hi") > pl.col("lo")) & (pl.col("hi") > 0))
        .then((pl.col("bias") - pl.col("lo")) / (pl.col("hi") - pl.col("lo")))
        .otherwise(0.0)
        .alias("expected"),
        pl.when(pl.col("top") > 0).then(pl.col("bias") / pl.col("top")).otherwise(0.0).alias("expected_signed"),
    )
    assert np.allclose(df["bias_normalized"], df["expected"])
    assert np.allclose(df["bias_signed_normalized"], df["expected_signed"])
    by_prompt = df.group_by("feature", "prompt_style").agg(
        pl.col("expected").mean().alias("mean"), (pl.col("p_value") < 0.05).mean().alias("share")
    )
    aggregated = _aggregated(con, result_set, "prompt")
    assert len(aggregated) == by_prompt.height
    for feature, prompt_style, mean, share in by_prompt.iter_rows():
        normalized_mean, stored_share, marker, _ = aggregated[(feature, prompt_style)]
        assert (normalized_mean, stored_share, marker) == (pytest.approx(mean), pytest.approx(share), _marker(share))


def test_adjusted_p_values_are_statsmodels_holm_over_each_result_set(con):
    for result_set in ("synthetic_demo", "hostile_results"):
        p, adjusted, method = map(
            list,
            zip(
                *con.execute(
                    "select p_value, p_value_adjusted, adjustment_method from marts.fct_recsys_pool_vs_recommended"
                    " where result_set = ?",
                    [result_set],
                ).fetchall()
            ),
        )
        assert set(method) == {"holm"}
        assert np.allclose(adjusted, multipletests(p, method="holm")[1])


@pytest.mark.real_data
def test_the_864_published_rows_load_normalise_and_aggregate(con):
    path = shared_file("recsys-bias/pool_vs_recommended_summary.csv")
    original = duckdb.sql(f"select * from read_csv('{path}')").fetchall()
    stored = con.execute(
        "select feature, dataset, provider, prompt_style, bias, p_value, metric, significant"
        " from marts.fct_recsys_pool_vs_recommended where result_source = 'published'"
        " and result_set = 'pool_vs_recommended_summary'"
    ).fetchall()
    assert len(stored) == 864 and sorted(stored) == sorted(original)
    levels = dict(
        con.execute(
            "select level, count(*) from marts.agg_recsys_bias"
            " where result_set = 'pool_vs_recommended_summary' group by level"
        ).fetchall()
    )
    assert levels == {"dataset_model_prompt": 16 * 54, "prompt": 16 * 6, "dataset": 16 * 3, "model": 16 * 3, "all": 16}
    shares = {}
    for feature, *_, p_value, _, _ in original:
        shares.setdefault(feature, []).append(p_value < 0.05)
    overall = {f: v for (f, _), v in _aggregated(con, "pool_vs_recommended_summary", "all").items()}
    for feature, flags in shares.items():
        assert overall[feature][1] == pytest.approx(np.mean(flags))
        assert overall[feature][2] == _marker(np.mean(flags))
    extremes = con.execute(
        "select count(*) filter (where bias_normalized = 1), min(bias_normalized),"
        " max(bias_normalized) from marts.fct_recsys_pool_vs_recommended"
        " where result_set = 'pool_vs_recommended_summary'"
    ).fetchone()
    assert extremes == (16, 0.0, 1.0)  # each feature's largest bias maps to 1


def test_the_page_shows_heatmaps_and_bars_and_escapes_every_text(recsys_warehouse):
    html = (recsys_warehouse[0] / "site" / "studies" / "recsys_test.html").read_text(encoding="utf-8")
    specs = [
        json.loads(s) for s in re.findall(r'<script type="application/json" id="chart-\d+-spec">(.*?)</script>', html)
    ]
    titles = [s.get("title", "") for s in specs]
    # every chart twice: by the verdict policy (the default) and, folded, as the paper published it
    published = [t for t in titles if ", as published (raw p < 0.05)" in t]
    adjusted = [t for t in titles if t not in published]
    n_prompt_styles, n_result_sets = 3 + 1 + 1 + (6 if PUBLISHED.exists() else 0), (4 if PUBLISHED.exists() else 3)
    for charts in (adjusted, published):
        assert sum(t.startswith("Prompt style: ") for t in charts) == n_prompt_styles
        assert sum(t.startswith("By ") for t in charts) == 3 * n_result_sets
    assert sum(t.startswith("Overall signed bias") for t in adjusted) == n_result_sets
    assert sum(t.startswith("Overall bias, as published") for t in published) == n_result_sets
    assert all("after Holm" in t for t in adjusted if t.startswith(("Prompt style: ", "By ", "Overall")))
    overall = next(s for s in specs if s.get("title", "").startswith("Overall bias"))
    assert overall["layer"][0]["encoding"]["color"]["scale"]["range"][0] == "darkred"
    assert HOSTILE not in html and "<img src=x>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "Raw results (189 rows)" in html
    assert 'synthetic_demo <span class="note">(SYNTHETIC data' in html
    assert 'hostile_results <span class="note">(published results)' in html
