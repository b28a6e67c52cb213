"""Alert thresholds of a drift series: a CSV (``metric,k,retriever,direction,threshold,severity,description``).

The documented default is dbt_project/seeds/evaluation/retrieval_alert_thresholds.csv; a
study names its own with ``[evaluation] thresholds = "my_thresholds.csv"``. The evaluation
job records the thresholds with the series (``raw.evaluation_thresholds``), so editing a
file later never changes a finished series' alerts.
"""

from __future__ import annotations

import csv
import math
from pathlib import Path

from warehouse.errors import InputError, UserError
from warehouse.settings import DBT_PROJECT_DIR

DEFAULT_THRESHOLDS = DBT_PROJECT_DIR / "seeds" / "evaluation" / "retrieval_alert_thresholds.csv"
COLUMNS = ("metric", "k", "retriever", "direction", "threshold", "severity", "description")
METRICS = {"recall", "precision", "f1", "hit_rate", "mrr", "ndcg", "map", "r_precision", "top_score",
           "latency_p95_ms"}
DIRECTIONS = {"below", "above", "drop_pct"}


def read_thresholds(path: str | Path | None = None) -> list[tuple]:
    """The checked threshold rows of ``path`` (default: the seed), in file order."""
    path = Path(path) if path else DEFAULT_THRESHOLDS
    if not path.is_file():
        raise UserError(f"{path}: no such thresholds file ([evaluation] thresholds)")
    with open(path, encoding="utf-8-sig", newline="") as handle:
        reader = csv.DictReader(handle)
        missing = [c for c in COLUMNS if c not in (reader.fieldnames or [])]
        if missing:
            raise InputError(path, f"missing column(s) {', '.join(missing)}", row=1)
        rows = []
        for number, record in enumerate(reader, start=2):
            metric = (record["metric"] or "").strip()
            if metric not in METRICS:
                raise InputError(path, f"unknown metric {metric!r}", row=number, field="metric")
            k_text = (record["k"] or "").strip()
            try:
                k = int(k_text) if k_text else None
                threshold = float(record["threshold"])
            except ValueError:
                field = "threshold" if k_text.isdigit() or not k_text else "k"
                raise InputError(path, "not a number", row=number, field=field) from None
            if not math.isfinite(threshold):
                raise InputError(path, "must be a finite number", row=number, field="threshold")
            if (record["direction"] or "").strip() not in DIRECTIONS:
                raise InputError(path, f"must be one of {', '.join(sorted(DIRECTIONS))}", row=number,
                                 field="direction")
            if k is not None and k < 1:
                raise InputError(path, "must be a positive integer", row=number, field="k")
            rows.append((metric, k, (record["retriever"] or "*").strip(), (record["direction"] or "").strip(),
                         threshold, (record["severity"] or "").strip(), record["description"]))
    return rows
