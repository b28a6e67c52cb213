"""An evaluation run whose answers come from a live system: recorded as a run, as an imported one is.

The system's answers are written to ``raw.retrieval_*`` as retriever ``system`` (family
``external``), per-query latencies with them (timing ``per_query``). Every query asked is a row
of ``raw.evaluation_live_queries``: answered or failed, with its latency, attempts, the reason
of a failure and the version the system reported. Only answered queries enter the run's
metrics (a query lost to a timeout is not a query the system got wrong), so a partly failing
evaluation says over how many queries its metrics are (``dim_evaluation_runs.n_queries``, and
``agg_evaluation_live_runs``: asked, answered, failed, ``is_partial``). An answer naming a
document the corpus does not hold is that query's failure; a run where every query failed
stops the study run (there is nothing to evaluate).
"""

from __future__ import annotations

import dataclasses
import datetime
import math
from collections import Counter

import numpy as np
import pyarrow as pa

from biaswh.compute.evaluation.live_systems import ask_live_system
from biaswh.compute.retrieval.external_runs import OUR_RETRIEVERS
from biaswh.compute.retrieval.ranking import QueryHits
from biaswh.compute.retrieval.runner import RetrieverOutput
from biaswh.compute.retrieval.writer import insert_rows, write_outputs
from biaswh.ingest.common.llm.client import EndpointFailed
from biaswh.ingest.common.llm.settings import public_url
from biaswh.warehouse.errors import UserError

LIVE_QUERIES_TABLE = "raw.evaluation_live_queries"


def live_partition(study) -> datetime.date | None:
    """The week a monitoring tick evaluates (``biaswh monitor`` sets it), or None for a plain run."""
    text = (study.settings.get("monitoring") or {}).get("partition")
    return datetime.date.fromisoformat(text) if text else None


def _known_documents(answer, doc_ids: dict[str, int]):
    """The answer with a failure when it names a document the corpus does not hold."""
    unknown = next((doc for doc, _ in answer.hits if doc not in doc_ids), None)
    if unknown is None:
        return answer
    return dataclasses.replace(answer, hits=[], failure=f"document {unknown[:60]!r} is not in the corpus")


def write_live_run(con, child, run: dict, queries, query_set: str, config, study, *, record: dict, created) -> tuple:
    """Ask the live system every query and write the answered ones; return (outputs, answered queries)."""
    system = run["system"] or run["label"]
    where = f"{study.path}: [[evaluation.runs]] {run['label']}:"
    if system in OUR_RETRIEVERS or system.startswith("bm25@"):
        raise UserError(f"{where} system {system!r} is the name of one of our retrievers: name it otherwise")
    split = queries[0].corpus_split
    doc_ids = dict(
        con.execute("select source_doc_id, doc_id from marts.dim_corpus_documents where split = ?", [split]).fetchall()
    )
    answers = ask_live_system(
        run["live"], [q.text for q in queries], config.depth, partition=live_partition(study), where=where
    )
    answers = [_known_documents(a, doc_ids) for a in answers]
    _write_live_queries(con, child.run_id, query_set, queries, answers)
    answered = [i for i, a in enumerate(answers) if not a.failure]
    versions = sorted({a.version for a in answers if a.version})
    record["live_system"] = {
        "kind": "http" if "http" in run["live"] else "callable",
        "target": public_url(run["live"]["http"]) if "http" in run["live"] else run["live"]["callable"],
        "n_asked": len(queries),
        "n_answered": len(answered),
        "n_failed": len(queries) - len(answered),
        "versions": versions,
        "failure_reasons": dict(Counter(a.failure for a in answers if a.failure).most_common(5)),
    }
    if not answered:
        reason = next(iter(record["live_system"]["failure_reasons"]), "")
        raise EndpointFailed(
            f"{where} the live system answered none of {len(queries)} queries (first reason: {reason})"
        )
    kept = [queries[i] for i in answered]
    output = RetrieverOutput(
        retriever=system,
        family="external",
        hits=[
            QueryHits(
                np.array([doc_ids[d] for d, _ in answers[i].hits], dtype=np.int64),
                np.array([s for _, s in answers[i].hits], dtype=np.float64),
                None if answers[i].hits else "no results",
            )
            for i in answered
        ],
        latency_ms=[answers[i].latency_ms for i in answered],
        seconds=sum(a.latency_ms for a in answers) / 1000,
        details={"live_system": record["live_system"]},
    )
    write_outputs(
        con,
        run_id=child.run_id,
        query_set=query_set,
        queries=kept,
        outputs=[output],
        config=dataclasses.replace(config, timing="per_query"),
        record=record,
        created_at=created,
    )
    if len(answered) < len(queries):
        print(f"  {run['label']}: {len(queries) - len(answered)} of {len(queries)} queries failed: partly evaluated")
    return [output], answered


def _write_live_queries(con, run_id: str, query_set: str, queries, answers) -> None:
    """One ``raw.evaluation_live_queries`` row per query asked."""
    rows = pa.table(
        {
            "run_id": [run_id] * len(queries),
            "query_set": [query_set] * len(queries),
            "query_id": [q.query_id for q in queries],
            "variant": [q.variant for q in queries],
            "status": ["failed" if a.failure else "answered" for a in answers],
            "n_hits": pa.array([len(a.hits) for a in answers], pa.int32()),
            "latency_ms": pa.array([None if math.isnan(a.latency_ms) else a.latency_ms for a in answers], pa.float64()),
            "attempts": pa.array([a.attempts for a in answers], pa.int32()),
            "failure_reason": pa.array([a.failure or None for a in answers], pa.string()),
            "system_version": pa.array([a.version for a in answers], pa.string()),
        }
    )
    insert_rows(con, LIVE_QUERIES_TABLE.removeprefix("raw."), rows)
