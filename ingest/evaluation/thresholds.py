"""Alert thresholds of a drift series: a CSV (``metric,k,retriever,direction,threshold,severity,description``).

The documented default is dbt_project/seeds/evaluation/evaluation_alert_thresholds.csv; a
study names its own with ``[evaluation] thresholds = "my_thresholds.csv"``. The evaluation
job records the thresholds with the series (``raw.evaluation_thresholds``), so editing a
file later never changes a finished series' alerts.
"""

from __future__ import annotations

import csv
import math
from pathlib import Path

import pyarrow as pa

from biaswh.ingest.common.readers import allow_csv_fields_of
from biaswh.warehouse.database.transactions import registered
from biaswh.warehouse.errors import InputError, UserError
from biaswh.warehouse.settings.home import DBT_PROJECT_DIR

DEFAULT_THRESHOLDS = DBT_PROJECT_DIR / "seeds" / "evaluation" / "evaluation_alert_thresholds.csv"
COLUMNS = ("metric", "k", "retriever", "direction", "threshold", "severity", "description")
METRICS = {"recall", "precision", "f1", "hit_rate", "mrr", "ndcg", "map", "r_precision", "top_score", "latency_p95_ms"}
DIRECTIONS = {"below", "above", "drop_pct"}


def read_thresholds(path: str | Path | None = None) -> list[tuple]:
    """The checked threshold rows of ``path`` (default: the seed), in file order."""
    path = Path(path) if path else DEFAULT_THRESHOLDS
    if not path.is_file():
        raise UserError(f"{path}: no such thresholds file ([evaluation] thresholds)")
    allow_csv_fields_of(path.stat().st_size)
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
                raise InputError(path, f"must be one of {', '.join(sorted(DIRECTIONS))}", row=number, field="direction")
            if k is not None and k < 1:
                raise InputError(path, "must be a positive integer", row=number, field="k")
            rows.append(
                (
                    metric,
                    k,
                    (record["retriever"] or "*").strip(),
                    (record["direction"] or "").strip(),
                    threshold,
                    (record["severity"] or "").strip(),
                    record["description"],
                )
            )
    return rows


def max_achievable(con, query_set: str, query_ids: list[str], metric: str, k: int | None) -> float | None:
    """The best mean ``metric@k`` the judgments allow over these queries (None when it is 1 or not bounded).

    A perfect ranking puts every relevant document first: P@k is then min(n_relevant, k) / k and
    R@k min(n_relevant, k) / n_relevant per query (queries without a relevant document are not
    evaluated, as in trec_eval). A ``below`` threshold above this value can never clear.
    """
    if metric not in ("precision", "recall") or k is None:
        return None
    with registered(con, "_threshold_queries", pa.table({"query_id": sorted(set(query_ids))})):
        value = con.execute(
            f"""select avg(least(n_relevant, {int(k)}) / {"n_relevant" if metric == "recall" else int(k)})
            from (select q.query_id, count(*) filter (where q.relevance > 0) as n_relevant
                  from marts.fct_evaluation_qrels q join _threshold_queries using (query_id)
                  where q.query_set = ? group by q.query_id) where n_relevant > 0""",
            [query_set],
        ).fetchone()[0]
    return None if value is None or value >= 1.0 else float(value)
