"""Rows of ``raw.weat_metric_results``.

Written with the WEAT rows by :func:`biaswh.compute.weat.store.write_results`.
"""

from __future__ import annotations

import json

import pyarrow as pa

from biaswh.compute.weat.metrics import MetricOutcome

RESULT_FIELDS = (
    "value",
    "group_x_value",
    "group_y_value",
    "weat_sign",
    "direction",
    "ci_low",
    "ci_high",
    "ci_method",
    "confidence_level",
    "bootstrap_resamples",
    "spread_low",
    "spread_high",
    "spread_method",
    "p_value",
    "p_method",
    "p_alternative",
    "n_permutations",
    "n_attributes",
    "vectors",
    "convention",
)
COLUMNS = (
    "run_id",
    "embedding",
    "embedding_version",
    "test_set",
    "test",
    "metric",
    "attribute_set",
    "status",
    "status_reason",
    *RESULT_FIELDS,
    "p_holm",
    "n_target_x",
    "n_target_y",
    "coverage",
    "details",
    "seed",
)
SCHEMA = {
    "weat_sign": pa.int32(),
    "bootstrap_resamples": pa.int32(),
    "n_permutations": pa.int64(),
    "n_attributes": pa.int32(),
    "n_target_x": pa.int32(),
    "n_target_y": pa.int32(),
    "embedding_version": pa.int32(),
    "seed": pa.int64(),
}


def metric_row(run_id: str, key: dict, outcome: MetricOutcome) -> dict:
    """One raw row; ``key`` holds embedding, embedding_version, test_set, test, n_target_x/y and coverage."""
    result = outcome.result
    row = {
        "run_id": run_id,
        **key,
        "metric": outcome.metric,
        "attribute_set": outcome.attribute_set,
        "status": outcome.status,
        "status_reason": outcome.status_reason,
        # Runs before the adjustment moved to the weat_report step (the study's verdict policy,
        # analysis.weat_metric_verdicts) hold Holm's p here; later runs leave it null.
        "p_holm": None,
        "seed": outcome.seed,
        "details": json.dumps(result.details, sort_keys=True) if result is not None else None,
    }
    for name in RESULT_FIELDS:
        row[name] = getattr(result, name) if result is not None else None
    if result is not None:
        row["n_target_x"], row["n_target_y"] = result.n_target_x, result.n_target_y
    return row


def metric_table(rows: list[dict]) -> pa.Table:
    """The rows (from :func:`metric_row`) as an Arrow table typed like ``raw.weat_metric_results``."""
    fields = [pa.field(name, SCHEMA.get(name, pa.float64() if name in DOUBLES else pa.string())) for name in COLUMNS]
    return pa.Table.from_pylist([{name: row.get(name) for name in COLUMNS} for row in rows], schema=pa.schema(fields))


DOUBLES = {
    "value",
    "group_x_value",
    "group_y_value",
    "ci_low",
    "ci_high",
    "confidence_level",
    "spread_low",
    "spread_high",
    "p_value",
    "p_holm",
    "coverage",
}
