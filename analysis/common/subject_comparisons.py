"""Two subjects of one kind compared finding by finding, with a paired test over the units they share.

Two versions of a subject, or two rivals, measured on the same data have findings on the same
units (query pairs, target words, counterfactual pairs: :mod:`biaswh.warehouse.relations.subject_units`). For
each finding both have, the units both were measured on are paired, and the mean of the
per-unit differences (candidate minus baseline) is tested with the sign-flip randomization test
(exact wherever feasible) with its BCa bootstrap interval
(:func:`biaswh.stats.paired.mean_difference.paired_mean_difference`). A finding without units, or
with none in common, stays a row, "not compared", with why.

The verdicts (:func:`comparison_verdict`) come after the audit adjusts these p-values with its
findings' as one family: "better" when the difference is significant and the candidate's mean
lies nearer 0 (no bias) than the baseline's, "worse" when farther, "no evidence of a
difference" otherwise.
"""

from __future__ import annotations

import duckdb
import numpy as np
import polars as pl

from biaswh.stats.paired.mean_difference import paired_mean_difference, paired_status
from biaswh.warehouse.relations.subject_units import subject_units_sql
from biaswh.warehouse.settings.random_seeds import derive_seed

FEW_DIFFERING = 10  # below this many differing units a comparison's note gives the smallest p it could reach
VERDICTS = ("better", "worse", "different, equally far from no bias", "no evidence of a difference", "not compared")
COMPARISON_SCHEMA = {
    "baseline_subject_id": pl.String,
    "baseline_label": pl.String,
    "candidate_subject_id": pl.String,
    "candidate_label": pl.String,
    "relation": pl.String,
    "study_type": pl.String,
    "dimension": pl.String,
    "finding": pl.String,
    "value_name": pl.String,
    "n_units": pl.Int64,
    "n_nonzero": pl.Int64,
    "baseline_mean": pl.Float64,
    "candidate_mean": pl.Float64,
    "difference": pl.Float64,
    "ci_low": pl.Float64,
    "ci_high": pl.Float64,
    "ci_method": pl.String,
    "test": pl.String,
    "p_value": pl.Float64,
    "p_t_test": pl.Float64,
    "note": pl.String,
    "baseline_run_id": pl.String,
    "candidate_run_id": pl.String,
}


def comparison_verdict(baseline_mean: float | None, candidate_mean: float | None, *, is_significant: bool) -> str:
    """The comparison's word: better, worse, or no evidence of a difference (see the module's docstring)."""
    if baseline_mean is None or candidate_mean is None:
        return "not compared"
    if not is_significant:
        return "no evidence of a difference"
    if abs(candidate_mean) < abs(baseline_mean):
        return "better"
    if abs(candidate_mean) > abs(baseline_mean):
        return "worse"
    return "different, equally far from no bias"


def _note(status: str, n_nonzero: int, min_p: float | None) -> str:
    """What limits a comparison: too few paired units, or so few differing ones that p cannot be small."""
    if status != "tested":
        return "fewer than 6 paired units: never called significant"
    if n_nonzero == 0:
        return "no unit differs"
    if n_nonzero < FEW_DIFFERING and min_p is not None:
        return f"only {n_nonzero} units differ: the smallest p possible is {min_p:.3g}"
    return ""


def _existing(con: duckdb.DuckDBPyConnection) -> set[str]:
    rows = con.execute("select table_schema, table_name from information_schema.tables").fetchall()
    return {f"{schema}.{table}" for schema, table in rows}


def _units(con, units_sql: str | None, finding: dict) -> pl.DataFrame:
    if units_sql is None:
        return pl.DataFrame(schema={"unit": pl.String, "value": pl.Float64, "value_name": pl.String})
    return con.execute(
        f"select unit, value, value_name from ({units_sql}) as units"
        " where study_type = ? and run_id = ? and measured_as = ? and finding = ? and value is not null",
        [finding["study_type"], finding["run_id"], finding["measured_as"], finding["finding"]],
    ).pl()


def compare_subjects(
    con: duckdb.DuckDBPyConnection,
    *,
    baseline: tuple[str, str],
    candidate: tuple[str, str],
    found_baseline: dict[tuple[str, str], dict],
    found_candidate: dict[tuple[str, str], dict],
    relation: str,
    seed: int,
) -> pl.DataFrame:
    """One row per finding both subjects have: the paired difference (candidate - baseline) over shared units.

    Parameters
    ----------
    con : the warehouse whose marts and analysis tables hold the findings' units.
    baseline, candidate : (subject id, label) of each.
    found_baseline, found_candidate : each subject's findings, (study type, finding) -> the finding's
        ``dimension``, ``run_id``, ``measured_as`` and ``study_type`` and ``finding`` (as in ``subject_findings``).
    relation : how the two relate, in words (e.g. "versions of one subject").
    seed : the audit's seed; each finding's test and interval derive theirs from it.

    Returns
    -------
    polars.DataFrame
        :data:`COMPARISON_SCHEMA`, the unadjusted p in ``p_value`` (null where not compared).
    """
    units_sql = subject_units_sql(_existing(con))
    rows = []
    for key in sorted(found_baseline.keys() & found_candidate.keys()):
        base, cand = found_baseline[key], found_candidate[key]
        base_units, cand_units = _units(con, units_sql, base), _units(con, units_sql, cand)
        paired = base_units.join(cand_units, on="unit", how="inner", suffix="_candidate")
        row = {
            "baseline_subject_id": baseline[0],
            "baseline_label": baseline[1],
            "candidate_subject_id": candidate[0],
            "candidate_label": candidate[1],
            "relation": relation,
            "study_type": key[0],
            "dimension": base["dimension"],
            "finding": key[1],
            "n_units": paired.height,
            "baseline_run_id": base["run_id"],
            "candidate_run_id": cand["run_id"],
        }
        if paired.height == 0:
            unpaired = (
                "no units in common: the finding is not paired unit by unit"
                if base_units.height and cand_units.height
                else "no units to pair: its family pairs no units for this finding, or a subject has none"
            )
            rows.append({**row, "note": unpaired})
            continue
        paired = paired.sort("unit")
        baseline_values = paired["value"].to_numpy()
        candidate_values = paired["value_candidate"].to_numpy()
        result = paired_mean_difference(
            candidate_values,
            baseline_values,
            seed=derive_seed(seed, "audit comparison", baseline[0], candidate[0], *key),
        )
        status = paired_status(paired.height)
        rows.append(
            {
                **row,
                "value_name": paired["value_name"][0],
                "n_nonzero": result.n_nonzero,
                "baseline_mean": float(np.mean(baseline_values)),
                "candidate_mean": float(np.mean(candidate_values)),
                "difference": result.effect_size,
                "ci_low": result.ci_low,
                "ci_high": result.ci_high,
                "ci_method": result.ci_method,
                "test": f"{result.test}, {result.variant}",
                "p_value": result.p_value,
                "p_t_test": result.p_t_test,
                "note": _note(status, result.n_nonzero, result.min_p),
            }
        )
    return pl.DataFrame(rows, schema=COMPARISON_SCHEMA)
