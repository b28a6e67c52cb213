"""Per-feature attribution of a dialect retrieval gap: one row per rule, retriever and highlighted k.

A rule-variant pair set (``ingest/dialect/steps.py``) holds, per pair, the SAE
question, ``aae_rules`` (every rule applied) and ``rule_<name>`` (that rule alone, only
where it changed the question). Comparing the reference variant with each of them over the
pairs that have both gives, per rule: the recall difference (reference minus variant, in
points) with Newcombe's hybrid score 95% interval (a seeded paired bootstrap beside it),
McNemar's exact test (with mid-p and chi-square-cc beside it), the study's verdict policy
(``[verdicts]``: Holm or Benjamini-Hochberg, alpha) over the single rules within each
(retriever, pair set, k) (the ``aae_rules`` row is its own family of one), and the power
statement (the smallest gap the row's pairs could detect with 80% power at the policy's alpha,
Connor 1987). ``p_holm`` stays beside ``p_adjusted`` (Holm whatever the policy, for old readers).
"""

from __future__ import annotations

import numpy as np
import polars as pl

from biaswh.ingest.dialect.rules import RULES
from biaswh.stats.multiple_comparisons import DEFAULT_POLICY, VerdictPolicy, adjust_p_values
from biaswh.stats.paired.bootstrap import paired_recall_difference_grid
from biaswh.stats.paired.mcnemar import mcnemar
from biaswh.stats.paired.power import power_statement
from biaswh.stats.paired.score_interval import paired_difference_interval
from biaswh.stats.verdicts import with_verdicts
from biaswh.warehouse.settings.random_seeds import derive_seed

ALL_RULES = "aae_rules"
RULE_PREFIX = "rule_"


def _outcomes(con, run_id: str) -> pl.DataFrame:
    return con.execute(
        "select run_id, retriever, pair_set, k, variant_a, variant_b, n_pairs, both_hit, only_a, only_b, neither,"
        " recall_a, recall_b from marts.agg_dialect_paired_outcomes"
        " where run_id = ? and retriever = retriever_family and is_highlighted_k"
        " and (variant_b = ? or starts_with(variant_b, ?)) order by all",
        [run_id, ALL_RULES, RULE_PREFIX],
    ).pl()


def _hits(con, run_id: str, retriever: str, pair_set: str, variant_a: str, variant_b: str, ks: list[int]):
    frame = con.execute(
        "select pair_id, k, is_hit_a, is_hit_b from marts.fct_dialect_paired_hits where run_id = ? and retriever = ?"
        " and pair_set = ? and variant_a = ? and variant_b = ? and list_contains(?, k) order by pair_id, k",
        [run_id, retriever, pair_set, variant_a, variant_b, ks],
    ).pl()
    shape = (-1, len(ks))
    return frame["is_hit_a"].to_numpy().reshape(shape), frame["is_hit_b"].to_numpy().reshape(shape)


def feature_effects(
    con, run_id: str, *, seed: int, n_resamples: int = 2000, policy: VerdictPolicy = DEFAULT_POLICY
) -> pl.DataFrame:
    """One row per (retriever, pair set, rule variant, highlighted k) of run ``run_id``, judged by ``policy``."""
    outcomes = _outcomes(con, run_id)
    rows = []
    for (retriever, pair_set, variant_a, variant_b), group in outcomes.group_by(
        ["retriever", "pair_set", "variant_a", "variant_b"], maintain_order=True
    ):
        group = group.sort("k")
        ks = group["k"].to_list()
        hits_a, hits_b = _hits(con, run_id, retriever, pair_set, variant_a, variant_b, ks)
        intervals = paired_recall_difference_grid(
            hits_a,
            hits_b,
            seed=derive_seed(seed, "dialect feature bootstrap", retriever, pair_set, variant_a, variant_b),
            n_resamples=n_resamples,
        )
        for row, bootstrap in zip(group.iter_rows(named=True), intervals):
            exact = mcnemar(row["only_a"], row["only_b"], n_pairs=row["n_pairs"], variant="exact")
            statement = power_statement(row["n_pairs"], row["only_a"] + row["only_b"], alpha=policy.alpha)
            score = (
                paired_difference_interval(row["both_hit"], row["only_a"], row["only_b"], row["neither"])
                if row["n_pairs"]
                else None
            )
            rule = ALL_RULES if variant_b == ALL_RULES else variant_b.removeprefix(RULE_PREFIX)
            rows.append(
                {
                    **row,
                    "rule": rule,
                    "rule_source": RULES[rule].source if rule in RULES else "every rule of the variant set",
                    "is_all_rules": variant_b == ALL_RULES,
                    "n_discordant": row["only_a"] + row["only_b"],
                    "delta_pp": 100 * (row["recall_a"] - row["recall_b"]),
                    "ci_low": 100 * score.ci_low if score else None,
                    "ci_high": 100 * score.ci_high if score else None,
                    "ci_method": f"{score.method}, 95%" if score else None,
                    "bootstrap_ci_low": 100 * bootstrap.ci_low,
                    "bootstrap_ci_high": 100 * bootstrap.ci_high,
                    "p_exact": exact.p_value,
                    "p_midp": mcnemar(row["only_a"], row["only_b"], n_pairs=row["n_pairs"], variant="mid-p").p_value,
                    "p_chi2_cc": mcnemar(
                        row["only_a"], row["only_b"], n_pairs=row["n_pairs"], variant="chi2-cc"
                    ).p_value,
                    "detectable_gap_pp": 100 * statement.detectable_gap
                    if np.isfinite(statement.detectable_gap)
                    else None,
                    "power_sentence": statement.sentence,
                }
            )
    frame = pl.DataFrame(rows, infer_schema_length=None)
    return _holm_over_rules(_verdicts_over_rules(frame, policy)) if frame.height else frame


def _verdicts_over_rules(frame: pl.DataFrame, policy: VerdictPolicy) -> pl.DataFrame:
    """The verdict columns (:mod:`biaswh.stats.verdicts`) on p_exact: the family is the single rules of one
    (retriever, pair set, variant A, k); ``aae_rules`` (every rule together) is a family of one."""
    return with_verdicts(
        frame,
        by=["retriever", "pair_set", "variant_a", "k", "is_all_rules"],
        family_name=lambda key: (
            f"all rules together ({key['retriever']}, k = {key['k']}, pair set {key['pair_set']})"
            if key["is_all_rules"]
            else f"the single rules of {key['retriever']} at k = {key['k']} (pair set {key['pair_set']})"
        ),
        policy=policy,
        p_column="p_exact",
    )


def _holm_over_rules(frame: pl.DataFrame) -> pl.DataFrame:
    """Holm on p_exact over the single rules of each (retriever, pair set, variant A, k), whatever the policy."""
    frame = frame.with_row_index("_row")
    adjusted: dict[int, float] = {}
    for _, group in frame.group_by(["retriever", "pair_set", "variant_a", "k", "is_all_rules"]):
        adjusted.update(zip(group["_row"].to_list(), adjust_p_values(group["p_exact"].to_list(), method="holm")))
    return frame.with_columns(
        pl.col("_row").replace_strict(adjusted, return_dtype=pl.Float64).alias("p_holm"),
        pl.when(pl.col("is_all_rules"))
        .then(pl.lit("none: all rules together is one comparison"))
        .otherwise(pl.lit("the single rules per (retriever, pair set, k)"))
        .alias("adjustment_family"),
    ).drop("_row")
