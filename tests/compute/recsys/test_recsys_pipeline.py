"""The whole chain through the real CLI: ingest, dbt build, recsys_bias job, dbt build, dashboards.

One warehouse holds the synthetic demo post set (simulated with the demo's spec and seed),
a tiny hostile result set (for escaping) and, where ../shared/data is present, the 864
published rows. SQL results are checked against Python recomputations.
"""

from __future__ import annotations

import csv
import json
import re

import duckdb
import numpy as np
import polars as pl
import pytest
from scipy import stats
from statsmodels.stats.multitest import multipletests

from biaswh.warehouse.settings.random_seeds import derive_seed
from tests.conftest import REPOSITORY_ROOT, SHARED_DATA, run_study_printed, shared_file

pytestmark = pytest.mark.dbt

PUBLISHED = SHARED_DATA / "recsys-bias" / "pool_vs_recommended_summary.csv"
SPEC = REPOSITORY_ROOT / "studies" / "demo_data" / "recsys" / "simulation.toml"
HOSTILE = "<script>alert(1)</script>"
MARKERS = ((0.75, "***"), (0.6, "**"), (0.5, "*"))


def _marker(share: float) -> str:
    return next((m for threshold, m in MARKERS if share > threshold), "")


HAND_SET = "hand_checked"
# The hand-checked post set: one condition, 12 recommended and 18 other posts.
HAND_LENGTH_RECOMMENDED = [41.0, 55.0, 38.0, 62.0, 47.0, 59.0, 44.0, 70.0, 52.0, 49.0, 66.0, 58.0]
HAND_LENGTH_POOL = [
    35.0,
    40.0,
    29.0,
    51.0,
    33.0,
    46.0,
    38.0,
    42.0,
    30.0,
    37.0,
    55.0,
    31.0,
    44.0,
    36.0,
    48.0,
    27.0,
    39.0,
    34.0,
]
HAND_TOPIC = {"recommended": {"politics": 9, "sports": 2, "tech": 1}, "pool": {"politics": 4, "sports": 8, "tech": 6}}
HAND_LINK = {"recommended": 10, "pool": 5}  # posts with has_link = 1 in each group


def _write_hand_post_set(folder):
    """Write the hand-checked post set (posts CSV and feature table) and return both paths."""
    rows = []
    for group, lengths in (("recommended", HAND_LENGTH_RECOMMENDED), ("pool", HAND_LENGTH_POOL)):
        topics = [t for t, n in HAND_TOPIC[group].items() for _ in range(n)]
        links = [1] * HAND_LINK[group] + [0] * (len(lengths) - HAND_LINK[group])
        for length, topic, link in zip(lengths, topics, links, strict=True):
            rows.append(
                [
                    f"{group}-{len(rows)}",
                    "twitter",
                    "hand",
                    "general",
                    "1",
                    int(group == "recommended"),
                    length,
                    topic,
                    link,
                ]
            )
    posts, features = folder / "hand_posts.csv", folder / "hand_features.csv"
    with open(posts, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(
            ["post_id", "dataset", "provider", "prompt_style", "trial", "selected", "text_length", "topic", "has_link"]
        )
        writer.writerows(rows)
    features.write_text("feature,type\ntext_length,numerical\ntopic,categorical\nhas_link,binary\n", encoding="utf-8")
    return posts, features


def _pearson_chi_square(table: np.ndarray, *, yates: bool) -> float:
    """Pearson's chi-square of a contingency table; Yates subtracts 0.5 from each |observed - expected|."""
    expected = table.sum(axis=1, keepdims=True) * table.sum(axis=0, keepdims=True) / table.sum()
    gap = np.abs(table - expected) - (0.5 if yates else 0.0)
    return float(np.sum(gap**2 / expected))


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory):
    folder = tmp_path_factory.mktemp("recsys")
    hostile = folder / "hostile_results.csv"
    with open(hostile, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(["feature", "dataset", "provider", "prompt_style", "bias", "p_value", "metric", "significant"])
        writer.writerow([HOSTILE, "twitter", "openai", '"><img src=x>', "0.2", "0.01", "Cohen's d", "True"])
        writer.writerow([HOSTILE, "reddit", "openai", '"><img src=x>', "0.1", "0.3", "Cohen's d", "False"])
    posts, features = _write_hand_post_set(folder)
    steps = [
        f'[[ingest]]\nsource = "recsys_simulated"\npath = "{SPEC}"\n',
        f'[[ingest]]\nsource = "recsys_summary"\npath = "{hostile}"\n',
        f'[[ingest]]\nsource = "recsys_posts"\npath = "{posts}"\nfeatures_path = "{features}"\nname = "{HAND_SET}"\n',
    ]
    if PUBLISHED.exists():
        steps.append(f'[[ingest]]\nsource = "recsys_summary"\npath = "{PUBLISHED}"\n')
    study = folder / "recsys_test.toml"
    study.write_text(
        '[study]\nname = "recsys_test"\nseed = 20261122\njobs = ["recsys_bias"]\n\n'
        + "\n".join(steps)
        + '\n[recsys]\npool = "non_recommended"\np_adjust = "holm"\n',
        encoding="utf-8",
    )
    home = folder / "warehouse"
    return home, run_study_printed(str(study), home=home)


@pytest.fixture
def con(warehouse):
    connection = duckdb.connect(str(warehouse[0] / "warehouse.duckdb"), read_only=True)
    yield connection
    connection.close()


def _aggregated(con, result_set: str, level: str) -> dict:
    rows = con.execute(
        "select feature, group_value, normalized_bias_mean, share_significant, marker, bias_mean"
        " from marts.agg_recsys_bias where result_set = ? and level = ?",
        [result_set, level],
    ).fetchall()
    return {(r[0], r[1]): r[2:] for r in rows}


def test_the_injected_biases_are_recovered_through_the_whole_pipeline(con, warehouse):
    assert "192 computed tests (0 failed" in warehouse[1]  # 189 simulated + 3 hand-checked
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


def _hand_row(con, feature: str) -> dict:
    return (
        con.execute(
            "select * from marts.fct_recsys_pool_vs_recommended where result_set = ? and feature = ?",
            [HAND_SET, feature],
        )
        .pl()
        .to_dicts()[0]
    )


def test_numerical_condition_is_cohens_d_hedges_g_and_welch_by_hand(con):
    row = _hand_row(con, "text_length")
    rec, pool = np.array(HAND_LENGTH_RECOMMENDED), np.array(HAND_LENGTH_POOL)
    n1, n2 = rec.size, pool.size
    var1, var2 = np.sum((rec - rec.mean()) ** 2) / (n1 - 1), np.sum((pool - pool.mean()) ** 2) / (n2 - 1)
    d = (rec.mean() - pool.mean()) / np.sqrt(((n1 - 1) * var1 + (n2 - 1) * var2) / (n1 + n2 - 2))
    se1, se2 = var1 / n1, var2 / n2
    t = (rec.mean() - pool.mean()) / np.sqrt(se1 + se2)
    df = (se1 + se2) ** 2 / (se1**2 / (n1 - 1) + se2**2 / (n2 - 1))
    g = (1 - 3 / (4 * (n1 + n2) - 9)) * d
    g_se = (1 - 3 / (4 * (n1 + n2) - 9)) * np.sqrt((n1 + n2) / (n1 * n2) + d**2 / (2 * (n1 + n2)))
    assert (row["status"], row["metric"], row["n_recommended"], row["n_pool"]) == ("ok", "Cohen's d", 12, 18)
    assert row["bias"] == pytest.approx(d, rel=1e-12) and d > 1  # recommended posts are clearly longer
    assert row["statistic"] == pytest.approx(t, rel=1e-12)
    assert row["degrees_of_freedom"] == pytest.approx(df, rel=1e-12)
    assert row["p_value"] == pytest.approx(2 * stats.t.sf(abs(t), df), rel=1e-9)
    assert row["hedges_g"] == pytest.approx(g, rel=1e-12)
    assert (row["ci_low"], row["ci_high"]) == (
        pytest.approx(g - 1.959963984540054 * g_se, rel=1e-9),
        pytest.approx(g + 1.959963984540054 * g_se, rel=1e-9),
    )


@pytest.mark.parametrize(
    ("feature", "counts", "yates"),
    [
        (
            "topic",
            [[HAND_TOPIC["pool"][t], HAND_TOPIC["recommended"][t]] for t in ("politics", "sports", "tech")],
            False,
        ),
        (
            "has_link",
            [[18 - HAND_LINK["pool"], 12 - HAND_LINK["recommended"]], [HAND_LINK["pool"], HAND_LINK["recommended"]]],
            True,
        ),
    ],
)
def test_categorical_and_binary_conditions_are_cramers_v_by_hand(con, feature, counts, yates):
    row = _hand_row(con, feature)
    table = np.array(counts, dtype=float)  # rows: values; columns: pool, recommended
    chi_square = _pearson_chi_square(table, yates=yates)
    dof = (table.shape[0] - 1) * (table.shape[1] - 1)
    assert (row["status"], row["metric"], row["yates_applied"]) == ("ok", "Cramér's V", yates)
    assert row["statistic"] == pytest.approx(chi_square, rel=1e-12)
    assert row["degrees_of_freedom"] == dof
    assert row["bias"] == pytest.approx(np.sqrt(chi_square / table.sum()), rel=1e-12)  # min(rows, 2) - 1 = 1
    assert row["p_value"] == pytest.approx(stats.chi2.sf(chi_square, dof), rel=1e-9)
    assert row["p_value"] < 0.05


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


def test_the_page_shows_heatmaps_and_bars_and_escapes_every_text(warehouse):
    html = (warehouse[0] / "site" / "studies" / "recsys_test.html").read_text(encoding="utf-8")
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
