"""The dialect study's statistics over the dialect marts, for one run.

Per (retriever, k, variant pair): McNemar exact, mid-p and chi-square with continuity
correction side by side, the paired recall difference with Newcombe's hybrid score interval
(:mod:`biaswh.stats.paired.score_interval`; a seeded percentile bootstrap beside it, ``bootstrap_ci_*``),
and the verdict policy's adjustment within each retriever's highlighted k. Per retriever:
Wilcoxon signed-rank on the rank of the gold document under both miss policies. Per
(retriever, highlighted k): the power statement at the policy's alpha. Sweep points (e.g.
hybrid_minmax@0.3) are exploratory and not tested.
"""

from __future__ import annotations

import numpy as np
import polars as pl

from biaswh.stats.multiple_comparisons import DEFAULT_POLICY, VerdictPolicy
from biaswh.stats.paired.bootstrap import paired_recall_difference_grid
from biaswh.stats.paired.mcnemar import mcnemar
from biaswh.stats.paired.power import power_statement
from biaswh.stats.paired.score_interval import paired_difference_interval
from biaswh.stats.paired.wilcoxon import wilcoxon_rank_of_gold
from biaswh.stats.verdicts import with_verdicts
from biaswh.warehouse.settings.random_seeds import derive_seed

OUTCOME_COLUMNS = [
    "run_id",
    "retriever",
    "pair_set",
    "k",
    "variant_a",
    "variant_b",
    "n_pairs",
    "both_hit",
    "only_a",
    "only_b",
    "neither",
    "recall_a",
    "recall_b",
    "delta_pp",
    "is_highlighted_k",
]


def _outcomes(con, run_id: str) -> pl.DataFrame:
    return con.execute(
        f"select {', '.join(OUTCOME_COLUMNS)} from marts.agg_dialect_paired_outcomes"
        " where run_id = ? and retriever = retriever_family order by all",
        [run_id],
    ).pl()


def _hit_matrices(con, run_id, retriever, pair_set, variant_a, variant_b):
    """Both variants' hits, one row per pair (in pair_id order) and one column per k = 1..depth.

    The values of ``marts.fct_dialect_paired_hits`` (a hit is a gold rank <= k), computed here from
    the paired ranks, one row per pair: reading the view's pair x k rows and sorting them cost
    3.5 CPU-seconds per retriever at 50,000 pairs and depth 100.
    """
    ranks = con.execute(
        "select depth, rank_of_gold_a, rank_of_gold_b from marts.fct_dialect_paired_ranks where run_id = ?"
        " and retriever = ? and pair_set = ? and variant_a = ? and variant_b = ? order by pair_id",
        [run_id, retriever, pair_set, variant_a, variant_b],
    ).fetchnumpy()
    depth = np.asarray(ranks["depth"], np.int64)
    if depth.size and (depth != depth.max()).any():
        raise ValueError(f"run {run_id}, {retriever}: the pairs of {pair_set} were retrieved to different depths")
    k = np.arange(1, (depth.max() if depth.size else 0) + 1)
    return tuple(_hits_within(ranks[column], k) for column in ("rank_of_gold_a", "rank_of_gold_b"))


def _hits_within(ranks, k: np.ndarray) -> np.ndarray:
    """``ranks[i] <= k[j]`` for every pair i and cutoff j; a missing rank (null) is never a hit."""
    missing = np.ma.getmaskarray(ranks)
    found = np.ma.getdata(ranks).astype(np.int64)
    return (found[:, None] <= k[None, :]) & ~missing[:, None]


def paired_tests(
    con, run_id: str, *, seed: int, n_resamples: int = 2000, policy: VerdictPolicy = DEFAULT_POLICY
) -> pl.DataFrame:
    """One row per (retriever, pair set, k, variant pair) with the three McNemar p-values and intervals,
    and the verdict of the study's policy within each retriever's highlighted k."""
    outcomes = _outcomes(con, run_id)
    rows = []
    # The same discordant counts recur across k (26 distinct in the real study's 500 rows): each
    # is tested once (1,500 McNemar calls took 0.18 s of CPU).
    tests_of: dict[tuple[int, int, int], dict] = {}
    for (retriever, pair_set, variant_a, variant_b), group in outcomes.group_by(
        ["retriever", "pair_set", "variant_a", "variant_b"], maintain_order=True
    ):
        hits_a, hits_b = _hit_matrices(con, run_id, retriever, pair_set, variant_a, variant_b)
        intervals = paired_recall_difference_grid(
            hits_a,
            hits_b,
            seed=derive_seed(seed, "dialect bootstrap", retriever, pair_set, variant_a, variant_b),
            n_resamples=n_resamples,
        )
        for row in group.sort("k").iter_rows(named=True):
            bootstrap = intervals[row["k"] - 1]
            score = paired_difference_interval(row["both_hit"], row["only_a"], row["only_b"], row["neither"])
            counts = (row["only_a"], row["only_b"], row["n_pairs"])
            if counts not in tests_of:
                tests_of[counts] = {
                    v: mcnemar(row["only_a"], row["only_b"], n_pairs=row["n_pairs"], variant=v)
                    for v in ("exact", "mid-p", "chi2-cc")
                }
            tests = tests_of[counts]
            rows.append(
                {
                    **row,
                    "n_discordant": row["only_a"] + row["only_b"],
                    "p_exact": tests["exact"].p_value,
                    "p_midp": tests["mid-p"].p_value,
                    "p_chi2_cc": tests["chi2-cc"].p_value,
                    "chi2_cc_statistic": tests["chi2-cc"].statistic,
                    "ci_low": 100 * score.ci_low,
                    "ci_high": 100 * score.ci_high,
                    "ci_method": f"{score.method}, 95%",
                    "bootstrap_ci_low": 100 * bootstrap.ci_low,
                    "bootstrap_ci_high": 100 * bootstrap.ci_high,
                    "bootstrap_ci_method": f"paired bootstrap percentile 95%, {bootstrap.variant}",
                    "wald_ci_low": 100 * tests["exact"].ci_low,
                    "wald_ci_high": 100 * tests["exact"].ci_high,
                }
            )
    frame = pl.DataFrame(rows, infer_schema_length=None)
    return _with_adjustments(frame, policy) if frame.height else frame


def _with_adjustments(frame: pl.DataFrame, policy: VerdictPolicy) -> pl.DataFrame:
    """The verdict columns (:mod:`biaswh.stats.verdicts`) and Holm and BH beside them, on p_exact.

    The family is the highlighted k of one retriever, per pair set and variant pair: each
    retriever is its own question ("does this retriever treat the variants differently?"),
    asked at several k. Non-highlighted k (the sweep) belong to no family and are never significant.
    """
    frame = with_verdicts(
        frame,
        by=["pair_set", "variant_a", "variant_b", "retriever"],
        family_name=lambda key: (
            f"{key['retriever']} over the highlighted k ({key['variant_a']} vs {key['variant_b']}, "
            f"pair set {key['pair_set']})"
        ),
        policy=policy,
        p_column="p_exact",
        member=pl.col("is_highlighted_k"),
    )
    both = {
        column: with_verdicts(
            frame,
            by=["pair_set", "variant_a", "variant_b", "retriever"],
            family_name=str,
            policy=VerdictPolicy(method, policy.alpha),
            p_column="p_exact",
            member=pl.col("is_highlighted_k"),
        )["p_adjusted"]
        for column, method in (("p_holm", "holm"), ("p_bh", "fdr_bh"))
    }
    return frame.with_columns(
        both["p_holm"].alias("p_holm"),
        both["p_bh"].alias("p_bh"),
        pl.lit("exact McNemar; family = one retriever over the highlighted k").alias("adjustment_family"),
    )


def rank_tests(con, run_id: str, *, seed: int) -> pl.DataFrame:
    """Wilcoxon signed-rank on gold ranks per (retriever, pair set, variant pair), both miss policies."""
    ranks = con.execute(
        "select pair_set, retriever, variant_a, variant_b, pair_id, depth,"
        " rank_of_gold_a as rank_a, rank_of_gold_b as rank_b"
        " from marts.fct_dialect_paired_ranks"
        " where run_id = ? and retriever = retriever_family order by all",
        [run_id],
    ).pl()
    rows = []
    for (pair_set, retriever, variant_a, variant_b), group in ranks.group_by(
        ["pair_set", "retriever", "variant_a", "variant_b"], maintain_order=True
    ):
        for policy in ("miss_as_depth_plus_one", "original"):
            result = wilcoxon_rank_of_gold(
                group["rank_a"].to_list(),
                group["rank_b"].to_list(),
                depth=int(group["depth"].max()),
                policy=policy,
                seed=derive_seed(seed, "dialect wilcoxon", retriever, pair_set, variant_a, variant_b, policy),
            )
            rows.append(
                {
                    "run_id": run_id,
                    "retriever": retriever,
                    "pair_set": pair_set,
                    "variant_a": variant_a,
                    "variant_b": variant_b,
                    "policy": policy,
                    "test_variant": result.variant,
                    "n_pairs": group.height,
                    "n_used": result.n,
                    "statistic": result.statistic,
                    "p_value": result.p_value,
                    "rank_biserial": result.effect_size,
                    "ci_low": result.ci_low,
                    "ci_high": result.ci_high,
                    "note": result.note,
                }
            )
    return pl.DataFrame(rows, infer_schema_length=None)


def power_rows(tests: pl.DataFrame, *, alpha: float) -> pl.DataFrame:
    """The power statement per (retriever, pair set, variant pair, highlighted k), at the verdict policy's alpha."""
    rows = []
    for row in tests.filter(pl.col("is_highlighted_k")).iter_rows(named=True):
        statement = power_statement(row["n_pairs"], row["n_discordant"], alpha=alpha)
        rows.append(
            {
                key: row[key]
                for key in ("run_id", "retriever", "pair_set", "k", "variant_a", "variant_b", "n_pairs", "n_discordant")
            }
            | {
                "discordance_rate": statement.discordance_rate,
                "detectable_gap_pp": 100 * statement.detectable_gap if np.isfinite(statement.detectable_gap) else None,
                "pairs_needed_for_2pp": statement.pairs_needed_for_target
                if np.isfinite(statement.pairs_needed_for_target)
                else None,
                "alpha": statement.alpha,
                "power": statement.power,
                "sentence": statement.sentence,
            }
        )
    return pl.DataFrame(rows, infer_schema_length=None)
