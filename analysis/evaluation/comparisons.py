"""The comparison table of a drift series: every system against every other, paired per query.

A system is one ranking of one evaluation run (``<label>:<retriever>``, sweep points left out):
our retrievers, and runs written elsewhere (``run_file``) under their system's name. Each pair
is compared on the queries both evaluated, at one metric and cutoff (``[evaluation] compare``,
default nDCG@10), by the paired sign-flip randomization test of the mean per-query difference
with a BCa bootstrap interval (as the alerts are; stats/paired/mean_difference.py), the paired
t-test beside it, and the study's verdict policy (Holm by default, or Benjamini-Hochberg; its
alpha) over the tested pairs of the series, one family: the table ranx's ``compare`` and
trec_eval-based tools print. A pair with no query in common is kept as ``not testable`` (no
difference, no p, never significant, outside the family); a pair with fewer than six paired
queries is tested but never flagged significant.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np
import polars as pl

from biaswh.analysis.evaluation.intervals import TEST_SCHEMA, paired_change, stored_test_columns
from biaswh.stats.multiple_comparisons import DEFAULT_POLICY, VerdictPolicy
from biaswh.stats.paired.mean_difference import MIN_PAIRED_QUERIES
from biaswh.stats.verdicts import with_verdicts
from biaswh.warehouse.settings.random_seeds import derive_seed

SCHEMA = {
    "run_id": pl.String,
    "metric": pl.String,
    "k": pl.Int64,
    "system_a": pl.String,
    "system_b": pl.String,
    "value_a": pl.Float64,
    "value_b": pl.Float64,
    "mean_difference": pl.Float64,
    "difference_ci_low": pl.Float64,
    "difference_ci_high": pl.Float64,
    "n_paired_queries": pl.Int64,
    "p_value": pl.Float64,
    "test": pl.String,
    **TEST_SCHEMA,
}


def system_comparisons(
    con,
    series_run_id: str,
    *,
    metric: str = "ndcg",
    k: int = 10,
    seed: int,
    policy: VerdictPolicy = DEFAULT_POLICY,
    n_resamples: int = 2000,
) -> pl.DataFrame:
    """One row per pair of systems of the series ``series_run_id`` (a before b in series order)."""
    rows = con.execute(
        f"""
        select r.label || ':' || m.retriever as system, m.query_id, m.variant, m.{metric} as value
        from marts.fct_evaluation_query_metrics m
        join marts.dim_evaluation_runs r using (run_id)
        where r.series_run_id = ? and m.k = ? and m.retriever not like '%@%'  -- sweep points are not systems
        order by r.position, m.retriever
        """,
        [series_run_id, k],
    ).fetchall()
    systems: dict[str, dict[tuple, float]] = {}
    for system, query_id, variant, value in rows:
        systems.setdefault(system, {})[(query_id, variant)] = float(value)
    out = []
    for a, b in combinations(systems, 2):
        common = sorted(set(systems[a]) & set(systems[b]))
        result = None
        if common:
            result = paired_change(
                np.array([systems[a][q] for q in common]),
                np.array([systems[b][q] for q in common]),
                seed=derive_seed(seed, "evaluation", "compare", a, b),
                n_resamples=n_resamples,
            )
        out.append(
            {
                "run_id": series_run_id,
                "metric": metric,
                "k": k,
                "system_a": a,
                "system_b": b,
                # The means over the common queries; over each system's own where there are none.
                "value_a": float(np.mean([systems[a][q] for q in common or systems[a]])),
                "value_b": float(np.mean([systems[b][q] for q in common or systems[b]])),
                "mean_difference": None if result is None else result.effect_size,
                "difference_ci_low": None if result is None else result.ci_low,
                "difference_ci_high": None if result is None else result.ci_high,
                "n_paired_queries": len(common),
                "p_value": None if result is None else result.p_value,
                "test": None if result is None else f"{result.test} ({result.variant})",
                **stored_test_columns(result, len(common)),
            }
        )
    judged = with_verdicts(
        pl.DataFrame(out, schema=SCHEMA), by=["run_id"], family_name=lambda _: "the series' system pairs", policy=policy
    )
    # The minimum-n rule applies to the adjusted p too: enough paired queries and adjusted p < alpha.
    enough = pl.col("n_paired_queries") >= MIN_PAIRED_QUERIES
    return judged.with_columns((pl.col("is_significant") & enough).alias("is_significant"))
