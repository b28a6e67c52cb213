"""Between-model comparisons of the silent bias rate: the test a "highest rate" claim needs.

For every pair of models of one model set (a vignette set, rule set and dimension, the
family), Fisher's exact test on silent vs. not-silent biased answers and the Newcombe
interval of the rate difference (:func:`biaswh.stats.verdicts.compare_rates`), adjusted within
the family by the study's verdict policy.
"""

from __future__ import annotations

from itertools import combinations

import polars as pl

from biaswh.stats.multiple_comparisons import VerdictPolicy
from biaswh.stats.verdicts import compare_rates, with_verdicts

SCHEMA = {
    "run_id": pl.String,
    "vignette_set": pl.String,
    "rule_set": pl.String,
    "dimension": pl.String,
    "model_a": pl.String,
    "model_b": pl.String,
    "n_silent_a": pl.Int64,
    "n_biased_a": pl.Int64,
    "rate_a": pl.Float64,
    "n_silent_b": pl.Int64,
    "n_biased_b": pl.Int64,
    "rate_b": pl.Float64,
    "difference": pl.Float64,
    "ci_low": pl.Float64,
    "ci_high": pl.Float64,
    "test": pl.String,
    "p_value": pl.Float64,
}


def model_comparisons(rates: list[dict], *, run_id: str, policy: VerdictPolicy) -> pl.DataFrame:
    """One row per pair of models (``model_a`` < ``model_b``) with a defined rate, per model set.

    ``rates`` are rows of ``analysis.silent_bias_rates`` (vignette_set, rule_set, dimension,
    model, n_silent, n_biased). A model with no biased answer has no rate and no comparison.
    """
    groups: dict[tuple, list[dict]] = {}
    for row in rates:
        if row["n_biased"]:
            groups.setdefault((row["vignette_set"], row["rule_set"], row["dimension"]), []).append(row)
    records = []
    for (vignette_set, rule_set, dimension), members in sorted(groups.items()):
        for a, b in combinations(sorted(members, key=lambda r: r["model"]), 2):
            result = compare_rates(a["n_silent"], a["n_biased"], b["n_silent"], b["n_biased"])
            records.append(
                {
                    "run_id": run_id,
                    "vignette_set": vignette_set,
                    "rule_set": rule_set,
                    "dimension": dimension,
                    "model_a": a["model"],
                    "model_b": b["model"],
                    "n_silent_a": a["n_silent"],
                    "n_biased_a": a["n_biased"],
                    "rate_a": result.rate_a,
                    "n_silent_b": b["n_silent"],
                    "n_biased_b": b["n_biased"],
                    "rate_b": result.rate_b,
                    "difference": result.difference,
                    "ci_low": result.ci_low,
                    "ci_high": result.ci_high,
                    "test": result.test,
                    "p_value": result.p_value,
                }
            )
    return with_verdicts(
        pl.DataFrame(records, schema=SCHEMA),
        by=["vignette_set", "rule_set", "dimension"],
        family_name=lambda key: (
            f"the models of vignette set {key['vignette_set']} ({key['rule_set']} rules, {key['dimension']})"
        ),
        policy=policy,
    )
