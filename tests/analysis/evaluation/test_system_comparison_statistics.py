"""System comparisons against scipy and statsmodels: difference, BCa interval, exact p, the policy's adjustment."""

from __future__ import annotations

import duckdb
import numpy as np
import pytest
from scipy import stats
from statsmodels.stats.multitest import multipletests

from biaswh.analysis.evaluation.comparisons import system_comparisons
from biaswh.stats.multiple_comparisons import VerdictPolicy
from biaswh.warehouse.settings.random_seeds import derive_seed

SEED = 20261122
N_QUERIES = 12
# Mean shifts of each system's nDCG over the baseline; chosen (with the noise seed) so that the
# three exact p-values give Holm- and BH-adjusted values on opposite sides of alpha.
SHIFTS = {"w1:prod": 0.0, "w2:prod": 0.05, "ours:bm25": 0.2}


@pytest.fixture
def comparisons() -> tuple[duckdb.DuckDBPyConnection, dict[str, np.ndarray]]:
    con = duckdb.connect()
    con.execute("create schema marts")
    con.execute(
        "create table marts.dim_evaluation_runs (run_id varchar, label varchar, series_run_id varchar, position int)"
    )
    con.execute(
        "create table marts.fct_evaluation_query_metrics (run_id varchar, retriever varchar, query_id varchar,"
        " variant varchar, k int, ndcg double)"
    )
    rng = np.random.default_rng(3)
    base = rng.uniform(0.2, 0.7, N_QUERIES)
    values = {}
    for position, (system, shift) in enumerate(SHIFTS.items()):
        label, retriever = system.split(":")
        values[system] = np.round(base + shift + rng.normal(0, 0.1, N_QUERIES), 12)
        con.execute("insert into marts.dim_evaluation_runs values (?, ?, 's', ?)", [label, label, position])
        con.executemany(
            "insert into marts.fct_evaluation_query_metrics values (?, ?, ?, 'question', 10, ?)",
            [[label, retriever, f"q{q}", float(v)] for q, v in enumerate(values[system])],
        )
    # A system that ran other queries: nothing in common with the others, so nothing to test.
    con.execute("insert into marts.dim_evaluation_runs values ('elsewhere', 'elsewhere', 's', 9)")
    con.executemany(
        "insert into marts.fct_evaluation_query_metrics values ('elsewhere', 'prod', ?, 'question', 10, 0.5)",
        [[f"other{q}"] for q in range(N_QUERIES)],
    )
    return con, values


def test_difference_interval_and_p_equal_scipy(comparisons):
    con, values = comparisons
    out = system_comparisons(con, "s", seed=SEED)
    tested = out.filter(out["status"] == "tested")
    assert tested.height == 3
    for row in tested.iter_rows(named=True):
        # Queries are paired in the order of their sorted ids (q0, q1, q10, q11, q2, ...).
        order = np.argsort([f"q{q}" for q in range(N_QUERIES)])
        a, b = values[row["system_a"]][order], values[row["system_b"]][order]
        seed = derive_seed(SEED, "evaluation", "compare", row["system_a"], row["system_b"])
        interval = stats.bootstrap(
            (a - b,),
            np.mean,
            n_resamples=2000,
            method="BCa",
            vectorized=True,
            rng=np.random.default_rng(derive_seed(seed, "bootstrap")),
        ).confidence_interval
        exact = stats.permutation_test(
            (a, b),
            lambda x, y, axis: np.mean(x - y, axis=axis),
            permutation_type="samples",
            n_resamples=np.inf,
            vectorized=True,
        ).pvalue
        assert row["mean_difference"] == pytest.approx(np.mean(a - b), abs=1e-12)
        assert (row["value_a"], row["value_b"]) == (pytest.approx(a.mean()), pytest.approx(b.mean()))
        assert row["difference_ci_low"] == pytest.approx(interval.low, abs=1e-12)
        assert row["difference_ci_high"] == pytest.approx(interval.high, abs=1e-12)
        assert row["p_value"] == pytest.approx(exact, abs=1e-12)
        assert row["p_t_test"] == pytest.approx(stats.ttest_rel(a, b).pvalue, rel=1e-9)
        assert row["min_p"] == 2 / 2**N_QUERIES and row["n_paired_queries"] == row["n_nonzero"] == N_QUERIES
        assert row["p_method"] == "sign-flip randomization (exact enumeration)"


@pytest.mark.parametrize("policy", [VerdictPolicy(), VerdictPolicy("fdr_bh", 0.05), VerdictPolicy("holm", 0.01)])
def test_the_policy_adjusts_the_tested_pairs_and_untestable_pairs_stay_outside(comparisons, policy):
    con, _ = comparisons
    out = system_comparisons(con, "s", seed=SEED, policy=policy)
    tested = out.filter(out["status"] == "tested")
    p_values = tested["p_value"].to_numpy()
    adjusted = multipletests(p_values, method=policy.method)[1]
    np.testing.assert_allclose(tested["p_adjusted"].to_numpy(), adjusted, rtol=0, atol=1e-12)
    assert tested["is_significant"].to_list() == list(adjusted < policy.alpha)
    assert set(tested["adjustment"]) == {policy.name} and set(tested["alpha"]) == {policy.alpha}
    assert set(tested["family"]) == {"the series' system pairs"} and set(tested["family_size"]) == {3}
    # The data make the two corrections disagree on a verdict, so a Holm <-> BH swap fails here.
    holm, bh = (multipletests(p_values, method=m)[1] for m in ("holm", "fdr_bh"))
    assert list(holm < 0.05) != list(bh < 0.05)
    untestable = out.filter(out["status"] == "not testable")
    assert untestable.height == 3 and set(untestable["system_b"]) == {"elsewhere:prod"}
    assert untestable["p_value"].null_count() == untestable["p_adjusted"].null_count() == 3
    assert not untestable["is_significant"].any() and untestable["mean_difference"].null_count() == 3
