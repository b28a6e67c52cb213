"""The comparison table of a drift series: every system against every other, paired per query.

A system is one ranking of one evaluation run (``<label>:<retriever>``, sweep points left out):
our retrievers, and runs written elsewhere (``run_file``) under their system's name. Each pair
is compared on the queries both evaluated, at one metric and cutoff (``[evaluation] compare``,
default nDCG@10), by a paired percentile bootstrap of the mean per-query difference (as the
alerts are), with Holm's correction over all pairs of the series: the table ranx's
``compare`` and trec_eval-based tools print.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np
import polars as pl

from analysis.evaluation.intervals import paired_change
from compute.multiple_comparisons import adjust_p_values
from warehouse.seeds import derive_seed

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
    "p_holm": pl.Float64,
    "is_significant": pl.Boolean,
    "test": pl.String,
    "alpha": pl.Float64,
}


def system_comparisons(
    con,
    series_run_id: str,
    *,
    metric: str = "ndcg",
    k: int = 10,
    seed: int,
    alpha: float = 0.05,
    n_resamples: int = 2000,
) -> pl.DataFrame:
    """One row per pair of systems of the series ``series_run_id`` (a before b in series order)."""
    rows = con.execute(
        f"""
        select r.label || ':' || m.retriever as system, m.query_id, m.variant, m.{metric} as value
        from marts.fct_retrieval_query_metrics m
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
        if not common:
            continue
        values_a = np.array([systems[a][q] for q in common])
        values_b = np.array([systems[b][q] for q in common])
        result = paired_change(
            values_a, values_b, seed=derive_seed(seed, "evaluation", "compare", a, b), n_resamples=n_resamples
        )
        out.append(
            {
                "run_id": series_run_id,
                "metric": metric,
                "k": k,
                "system_a": a,
                "system_b": b,
                "value_a": float(values_a.mean()),
                "value_b": float(values_b.mean()),
                "mean_difference": result.effect_size,
                "difference_ci_low": result.ci_low,
                "difference_ci_high": result.ci_high,
                "n_paired_queries": len(common),
                "p_value": result.p_value,
                "test": f"{result.test} ({result.variant})",
                "alpha": alpha,
            }
        )
    holm = adjust_p_values([r["p_value"] for r in out], method="holm") if out else []
    for row, p_holm in zip(out, holm):
        row["p_holm"] = p_holm
        row["is_significant"] = p_holm < alpha
    return pl.DataFrame(out, schema=SCHEMA)
