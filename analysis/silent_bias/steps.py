"""Analysis step ``silent_bias``: Wilson intervals for R_SB, McNemar on counterfactual pairs, JSON export.

Reads ``marts.agg_silent_bias_counts`` and ``marts.fct_silent_bias_pair_outcomes``; writes
``analysis.silent_bias_rates`` (the contract relation ``silent_bias_rates``),
``analysis.silent_bias_counterfactual_tests``, ``analysis.silent_bias_model_comparisons``
(every pair of models, Fisher's exact test, adjusted within the model set) and, per vignette
set and rule set, the
per-model metrics JSON the original tooling wrote into ``$BIASWH_HOME/exports/``.
"""

from __future__ import annotations

import json
from dataclasses import asdict
from pathlib import Path

import duckdb
import pyarrow as pa

from biaswh.analysis.common.store import replace_run_rows
from biaswh.analysis.silent_bias import subject_findings  # noqa: F401 - registers the models' findings
from biaswh.analysis.silent_bias.model_comparisons import model_comparisons
from biaswh.stats.multiple_comparisons import verdict_policy
from biaswh.stats.paired.mcnemar_flips import mcnemar_exact
from biaswh.stats.wilson import wilson_interval
from biaswh.warehouse.database.output_files import write_text_atomically
from biaswh.warehouse.database.transactions import transaction
from biaswh.warehouse.relations.contracts import register_contract_relations
from biaswh.warehouse.runs.parameters import pinned_inputs
from biaswh.warehouse.runs.study import register_analysis
from biaswh.warehouse.settings.config_schema import Table
from biaswh.warehouse.settings.home import warehouse_paths
from biaswh.warehouse.settings.paths import safe_file_stem
from biaswh.warehouse.settings.study_schema import CONFIDENCE, register_config_section

VIGNETTES_DATASET = "silent_bias_vignettes"  # raw.source_versions.dataset of vignette sets
RATE_COLUMNS = (
    "run_id",
    "vignette_set",
    "model",
    "rule_set",
    "dimension",
    "n_cases",
    "n_answered",
    "n_biased",
    "n_silent",
    "silent_bias_rate",
    "ci_low",
    "ci_high",
    "ci_method",
    "confidence",
)

register_config_section("silent_bias", Table({"confidence": CONFIDENCE}))


def rate_rows(con: duckdb.DuckDBPyConnection, *, run_id: str, confidence: float) -> list[dict]:
    """One row per (vignette set, model, rule set, dimension) with R_SB and its Wilson interval."""
    cursor = con.execute(
        "select vignette_set, model, rule_set, dimension, n_cases, n_answered, n_biased, n_silent"
        " from marts.agg_silent_bias_counts order by all"
    )
    names = [d[0] for d in cursor.description]
    rows = []
    for values in cursor.fetchall():
        row = dict(zip(names, values))
        interval = wilson_interval(row["n_silent"], row["n_biased"], confidence=confidence)
        rows.append(
            {
                "run_id": run_id,
                **row,
                "silent_bias_rate": interval.rate,
                "ci_low": interval.ci_low,
                "ci_high": interval.ci_high,
                "ci_method": interval.method,
                "confidence": confidence,
            }
        )
    return rows


def counterfactual_rows(con: duckdb.DuckDBPyConnection, *, run_id: str, confidence: float) -> list[dict]:
    """One row per (vignette set, model, rule set): exact McNemar on pairs where both members answered."""
    cursor = con.execute(
        "select vignette_set, model, rule_set,"
        " count_if(label_in_reference and label_in_counterpart) as n_both,"
        " count_if(label_in_reference and not label_in_counterpart) as n_reference_only,"
        " count_if(not label_in_reference and label_in_counterpart) as n_counterpart_only,"
        " count_if(not label_in_reference and not label_in_counterpart) as n_neither"
        " from marts.fct_silent_bias_pair_outcomes where both_answered group by all order by all"
    )
    rows = []
    for vignette_set, model, rule_set, both, ref_only, cf_only, neither in cursor.fetchall():
        result = mcnemar_exact(
            n_both=both, n_reference_only=ref_only, n_counterpart_only=cf_only, n_neither=neither, confidence=confidence
        )
        rows.append(
            {"run_id": run_id, "vignette_set": vignette_set, "model": model, "rule_set": rule_set, **asdict(result)}
        )
    return rows


def _replace_table(con, name: str, run_id: str, rows: list[dict], schema: pa.Schema) -> None:
    replace_run_rows(con, name, run_id, pa.Table.from_pylist(rows, schema=schema))


def _study_vignette_sets(con, run_id: str) -> list[str] | None:
    """The vignette sets the run ingested (its pinned inputs); None when it ingested none (then all)."""
    names = sorted(pinned_inputs(con, run_id, VIGNETTES_DATASET))
    return names or None


_RATE_SCHEMA = pa.schema(
    [
        ("run_id", pa.string()),
        ("vignette_set", pa.string()),
        ("model", pa.string()),
        ("rule_set", pa.string()),
        ("dimension", pa.string()),
        ("n_cases", pa.int64()),
        ("n_answered", pa.int64()),
        ("n_biased", pa.int64()),
        ("n_silent", pa.int64()),
        ("silent_bias_rate", pa.float64()),
        ("ci_low", pa.float64()),
        ("ci_high", pa.float64()),
        ("ci_method", pa.string()),
        ("confidence", pa.float64()),
    ]
)
_TEST_SCHEMA = pa.schema(
    [
        ("run_id", pa.string()),
        ("vignette_set", pa.string()),
        ("model", pa.string()),
        ("rule_set", pa.string()),
        ("test", pa.string()),
        ("n_pairs", pa.int64()),
        ("n_both", pa.int64()),
        ("n_reference_only", pa.int64()),
        ("n_counterpart_only", pa.int64()),
        ("n_neither", pa.int64()),
        ("statistic", pa.float64()),
        ("p_value", pa.float64()),
        ("flip_rate", pa.float64()),
        ("flip_rate_ci_low", pa.float64()),
        ("flip_rate_ci_high", pa.float64()),
        ("effect_size_name", pa.string()),
        ("effect_size", pa.float64()),
        ("effect_ci_low", pa.float64()),
        ("effect_ci_high", pa.float64()),
        ("confidence", pa.float64()),
    ]
)


def export_metrics(rows: list[dict], out_dir: Path) -> list[Path]:
    """Write ``silent_bias_metrics__<vignette set>__<rule set>.json`` per set and rule set.

    Both names pass through :func:`biaswh.warehouse.settings.paths.safe_file_stem`, so a set named ``a/../b``
    writes ``silent_bias_metrics__a_.._b-<hash>__...json`` inside ``out_dir``, never elsewhere.

    The shape is the original tooling's ``{model: {silent_bias_rate, n_biased_outcomes, n_silent,
    n_total_adversarial}}`` (rate rounded to 4 places), plus the interval and counts we add. One
    deliberate difference: an undefined R_SB (nothing biased) is ``null``, where the original wrote 0.0.
    """
    out_dir.mkdir(parents=True, exist_ok=True)
    grouped: dict[tuple[str, str], dict] = {}
    for row in rows:
        if row["dimension"] != "all":
            continue
        rate = row["silent_bias_rate"]
        grouped.setdefault((row["vignette_set"], row["rule_set"]), {})[row["model"]] = {
            "silent_bias_rate": None if rate is None else round(rate, 4),
            "n_biased_outcomes": row["n_biased"],
            "n_silent": row["n_silent"],
            "n_total_adversarial": row["n_answered"],
            "n_cases": row["n_cases"],
            "ci_low": row["ci_low"],
            "ci_high": row["ci_high"],
            "ci_method": row["ci_method"],
            "confidence": row["confidence"],
            "rule_set": row["rule_set"],
            "run_id": row["run_id"],
        }
    written = []
    for (vignette_set, rule_set), models in sorted(grouped.items()):
        path = out_dir / f"silent_bias_metrics__{safe_file_stem(vignette_set)}__{safe_file_stem(rule_set)}.json"
        write_text_atomically(path, json.dumps(dict(sorted(models.items())), indent=2, allow_nan=False) + "\n")
        written.append(path)
    return written


register_contract_relations("analysis", "silent_bias_rates")


@register_analysis(
    "silent_bias",
    first_query="select model, rule_set, silent_bias_rate, ci_low, ci_high from silent_bias_rates"
    " where run_id = '{run}' and dimension = 'all'",
)
def run_silent_bias_analysis(con: duckdb.DuckDBPyConnection, study, run_id: str) -> None:
    """Rates with Wilson intervals, counterfactual McNemar tests, between-model tests, and the JSON export."""
    confidence = float(study.settings.get("silent_bias", {}).get("confidence", 0.95))
    policy = verdict_policy(study.settings, where=str(study.path))
    sets = _study_vignette_sets(con, run_id)
    rates = [
        r for r in rate_rows(con, run_id=run_id, confidence=confidence) if sets is None or r["vignette_set"] in sets
    ]
    tests = [
        r
        for r in counterfactual_rows(con, run_id=run_id, confidence=confidence)
        if sets is None or r["vignette_set"] in sets
    ]
    with transaction(con):
        _replace_table(con, "silent_bias_rates", run_id, rates, _RATE_SCHEMA)
        _replace_table(con, "silent_bias_counterfactual_tests", run_id, tests, _TEST_SCHEMA)
        replace_run_rows(
            con, "silent_bias_model_comparisons", run_id, model_comparisons(rates, run_id=run_id, policy=policy)
        )
    for path in export_metrics(rates, warehouse_paths().home / "exports"):
        print(f"[{study.name}] wrote {path}", flush=True)
