"""Retrieval runs written elsewhere: a TREC run file or BEIR-style JSON results as one system's output.

An external system's ranking (a production retriever's weekly run, a Pyserini or ranx run)
enters an evaluation series as the output of a retriever named after the system (retriever
family ``external``), so it is evaluated, compared and alerted on exactly like ours. Formats:

- TREC run (``qid Q0 docid rank score tag``, :mod:`biaswh.compute.retrieval.trec`): ordered by rank;
- JSON (``.json``): ``{query_id: {doc_id: score}}`` as BEIR's ``EvaluateRetrieval`` and ranx
  write it, ordered by score, highest first (ties by document id).

Document ids are the corpus source's own ids (``dim_corpus_documents.source_doc_id``); a query
id may carry a ``/<variant>`` suffix (as ``biaswh trec export`` writes it). A query or document
the query set or corpus does not hold is refused with the file, line and field; a query the
run left out gets no hits (reason ``not in the run file``). Rankings are cut at the depth.
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from biaswh.compute.retrieval.ranking import QueryHits, no_hits
from biaswh.compute.retrieval.runner import Query, RetrieverOutput
from biaswh.compute.retrieval.trec import read_run
from biaswh.ingest.common.readers import parse_json, read_utf8
from biaswh.warehouse.errors import InputError

NOT_IN_RUN = "not in the run file"
OUR_RETRIEVERS = ("bm25", "dense", "hybrid_union", "hybrid_minmax", "hybrid_rrf")


def _rows(path: Path) -> list[tuple[int, str, str, float, int | None]]:
    """(row, query id, doc id, score, rank or None) of every entry of the file."""
    if path.suffix.lower() == ".json":
        document = parse_json(path, read_utf8(path))
        if not isinstance(document, dict):
            raise InputError(path, "expected an object {query_id: {doc_id: score}}")
        rows = []
        for query_id, scores in document.items():
            if not isinstance(scores, dict):
                raise InputError(path, "expected {doc_id: score} for each query", row=len(rows) + 1, field=query_id)
            for doc_id, score in scores.items():
                if isinstance(score, bool) or not isinstance(score, (int, float)) or not math.isfinite(score):
                    raise InputError(path, f"score {score!r} is not a finite number", row=len(rows) + 1, field="score")
                rows.append((len(rows) + 1, str(query_id), str(doc_id), float(score), None))
        return rows
    return [(r.line, r.query_id, r.doc_id, r.score, r.rank) for r in read_run(path)]


def read_external_run(
    path: str | Path, *, system: str, queries: list[Query], doc_ids: dict[str, int], depth: int
) -> RetrieverOutput:
    """The run at ``path`` as retriever ``system``'s hits for ``queries`` (aligned), cut at ``depth``."""
    path = Path(path)
    if not path.is_file():
        raise InputError(path, "no such file")
    if system in OUR_RETRIEVERS or system.startswith("bm25@"):
        raise InputError(path, f"system {system!r} is the name of one of our retrievers: name it otherwise")
    wanted = {(q.query_id, q.variant) for q in queries}
    variants = {q.query_id: q.variant for q in queries}
    ranked: dict[tuple[str, str], list[tuple]] = {}
    rows = _rows(path)
    if not rows:
        raise InputError(path, "the run file has no entries")
    for row, qid, doc, score, rank in rows:
        query_id, slash, variant = qid.rpartition("/")
        if not slash:
            query_id, variant = qid, variants.get(qid, "question")
        if (query_id, variant) not in wanted:
            raise InputError(path, f"query {qid!r} is not in the evaluated query set", row=row, field="qid")
        if doc not in doc_ids:
            raise InputError(path, f"document {doc!r} is not in the corpus", row=row, field="docid")
        entries = ranked.setdefault((query_id, variant), [])
        if any(e[1] == doc_ids[doc] for e in entries):
            raise InputError(path, f"document {doc!r} is listed twice for query {qid!r}", row=row, field="docid")
        # TREC: by rank; JSON: by score, highest first, ties by document id
        entries.append(((rank,) if rank is not None else (-score, doc), doc_ids[doc], score))
    hits = []
    for query in queries:
        entries = sorted(ranked.get((query.query_id, query.variant), []), key=lambda e: e[0])[:depth]
        if not entries:
            hits.append(no_hits(NOT_IN_RUN))
            continue
        hits.append(
            QueryHits(np.array([e[1] for e in entries], dtype=np.int64), np.array([e[2] for e in entries], np.float64))
        )
    return RetrieverOutput(
        retriever=system,
        family="external",
        hits=hits,
        latency_ms=[math.nan] * len(queries),
        seconds=0.0,
        details={"external_run": str(path)},
    )
