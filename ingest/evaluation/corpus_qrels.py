"""Judgments of a corpus query set (``queries:<name>``): source ids checked and mapped to doc_ids.

A qrels file over an ingested corpus names documents by the source's own ids (BEIR
``corpus-id``, an MS MARCO pid, ``notes.md:12``). Every query id is checked against the query
set's latest version and every document id against its corpus's latest version before
anything is stored; each judgment's document becomes the corpus ``doc_id`` the warehouse holds.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from biaswh.ingest.common.versions import latest_version
from biaswh.warehouse.errors import InputError, UserError


def map_corpus_judgments(con, path: Path, judgments: list, query_set: str) -> list:
    """``judgments`` with each document's source id replaced by its ``doc_id``; unknown ids refused."""
    name = query_set.split(":", 1)[1]
    version = latest_version(con, "corpus_queries", name)
    latest = con.execute(
        "select corpus, source_version from raw.corpus_queries where query_set = ? and source_version = ? limit 1",
        [name, version],
    ).fetchone()
    if latest is None:
        raise UserError(
            f"{path}: qrels for query set {query_set} need the query set {name!r}, which is not ingested:"
            ' add a source = "corpus_queries" [[ingest]] step before the qrels step'
        )
    corpus, version = latest
    queries = {
        r[0]
        for r in con.execute(
            "select query_id from raw.corpus_queries where query_set = ? and source_version = ?", [name, version]
        ).fetchall()
    }
    documents = dict(
        con.execute(
            "select source_doc_id, doc_id from raw.corpus_documents where corpus = ? and source_version = ?",
            [corpus, latest_version(con, "corpus", corpus)],
        ).fetchall()
    )
    mapped = []
    for judgment in judgments:
        if judgment.query_id not in queries:
            raise InputError(
                path, f"query {judgment.query_id!r} is not in query set {query_set}", row=judgment.row, field="query_id"
            )
        if judgment.doc_id not in documents:
            raise InputError(
                path,
                f"document {judgment.doc_id!r} is not in corpus {corpus!r} ({len(documents)} documents)",
                row=judgment.row,
                field="doc_id",
            )
        mapped.append(dataclasses.replace(judgment, doc_id=documents[judgment.doc_id]))
    return mapped
