"""Where a dialect/variant pair's gold comes from: a SQuAD row, a corpus document or a judged query.

A pairs file names its gold in one of three ways (one per file):

- ``squad_idx`` (column ``squad_idx_column``) of a SQuAD dataset ``squad_split``: the question's
  own context (as before any corpus existed);
- a corpus document's source id (column ``gold_doc_id_column``, with ``corpus = "<name>"``);
- a query id of a loaded corpus query set with qrels (column ``gold_query_id_column``, with
  ``query_set = "queries:<name>"``): the pair's gold is every document that query's qrels
  judge relevant, and the retrieval job copies those judgments into the run's.

Every gold id is checked against the latest version of the corpus, query set and qrels
before anything is stored; a bad one is refused with file, row and field.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from biaswh.ingest.common.versions import latest_version
from biaswh.ingest.evaluation.qrels import LATEST_QRELS, latest_qrels
from biaswh.warehouse.errors import InputError, UserError


@dataclass(frozen=True)
class GoldSource:
    """How the rows of one pairs file name their gold, and the ids they may name."""

    kind: str  # squad_question, corpus_document or query_judgments
    column: str
    corpus: str  # the SQuAD dataset or corpus the pairs' queries search
    query_set: str | None = None  # query_judgments: the corpus query set's name
    n_squad_rows: int = 0
    known_ids: frozenset = field(default_factory=frozenset)

    def parameters(self) -> dict:
        """The loader options that define the gold (recorded with the version)."""
        if self.kind == "squad_question":
            return {"squad_idx_column": self.column, "squad_split": self.corpus}
        if self.kind == "corpus_document":
            return {"gold_doc_id_column": self.column, "corpus": self.corpus}
        return {"gold_query_id_column": self.column, "query_set": f"queries:{self.query_set}"}

    def resolve(self, path: Path, row: int, record: dict) -> dict:
        """The gold columns of ``raw.query_pair_variants`` for one source row; a bad id is refused."""
        value = record.get(self.column)
        if self.kind == "squad_question":
            return {
                "squad_split": self.corpus,
                "squad_idx": _squad_idx(path, row, value, self.column, self.n_squad_rows),
                "gold_source_doc_id": None,
                "gold_query_id": None,
            }
        if value is None or str(value).strip() == "":
            raise InputError(path, f"missing {self.column}", row=row, field=self.column)
        if isinstance(value, float) and value.is_integer():
            value = int(value)  # an id written 7 in JSON is the source id "7"
        gold_id = str(value).strip()
        if gold_id not in self.known_ids:
            raise InputError(path, self._unknown(gold_id), row=row, field=self.column)
        document = self.kind == "corpus_document"
        return {
            "squad_split": None,
            "squad_idx": None,
            "gold_source_doc_id": gold_id if document else None,
            "gold_query_id": None if document else gold_id,
        }

    def _unknown(self, gold_id: str) -> str:
        if self.kind == "corpus_document":
            return f"document {gold_id!r} is not in corpus {self.corpus!r} ({len(self.known_ids)} documents)"
        return (
            f"query {gold_id!r} is not a query of query set queries:{self.query_set} with a relevant judgment"
            f" ({len(self.known_ids)} such queries)"
        )


def _squad_idx(path: Path, row: int, value, column: str, n_rows: int) -> int:
    if value is None or (isinstance(value, str) and not value.strip()):
        raise InputError(path, "missing squad_idx", row=row, field=column)
    if isinstance(value, bool) or (isinstance(value, float) and not value.is_integer()):
        raise InputError(path, f"squad_idx must be an integer, got {value!r}", row=row, field=column)
    try:
        idx = int(value)
    except (TypeError, ValueError):
        raise InputError(path, f"squad_idx must be an integer, got {value!r}", row=row, field=column) from None
    if not 0 <= idx < n_rows:
        raise InputError(
            path, f"squad_idx {idx} is out of range (SQuAD split has rows 0..{n_rows - 1})", row=row, field=column
        )
    return idx


def _squad_source(con, column: str, split: str) -> GoldSource:
    version = latest_version(con, "squad", split)
    if version is None:
        raise UserError(f"SQuAD split '{split}' is not in the warehouse: run `biaswh ingest squad` first")
    n_rows = con.execute(
        "select n_rows from raw.source_versions where dataset = 'squad' and source_name = ? and version = ?",
        [split, version],
    ).fetchone()[0]
    return GoldSource("squad_question", column, split, n_squad_rows=n_rows)


def _document_source(con, path: Path, column: str, corpus: str) -> GoldSource:
    version = latest_version(con, "corpus", corpus)
    if version is None:
        raise UserError(
            f"{path}: pairs whose gold is a document of corpus {corpus!r} need that corpus, which is not"
            ' ingested: add a source = "corpus" [[ingest]] step before the pairs step'
        )
    ids = con.execute(
        "select source_doc_id from raw.corpus_documents where corpus = ? and source_version = ?", [corpus, version]
    ).fetchall()
    return GoldSource("corpus_document", column, corpus, known_ids=frozenset(r[0] for r in ids))


def _query_source(con, path: Path, column: str, query_set: str) -> GoldSource:
    if not query_set.startswith("queries:"):
        raise UserError(f"{path}: a pairs query_set must be 'queries:<name>' (a corpus query set), got {query_set!r}")
    name = query_set.split(":", 1)[1]
    version = latest_version(con, "corpus_queries", name)
    if version is None:
        raise UserError(
            f"{path}: pairs whose gold is a query of {query_set} need that query set, which is not ingested:"
            ' add source = "corpus_queries" and source = "qrels" [[ingest]] steps before the pairs step'
        )
    corpus, *_ = con.execute(
        "select corpus from raw.corpus_queries where query_set = ? and source_version = ? limit 1", [name, version]
    ).fetchone()
    pinned = latest_qrels(con, f"queries_{name}")
    judged = con.execute(
        f"""
        select distinct q.query_id
        from raw.corpus_queries q
        inner join raw.evaluation_qrels j
            on j.query_set = 'queries_' || q.query_set and j.query_id = q.query_id
        inner join {LATEST_QRELS} as latest_qrels
            on j.qrels_name = latest_qrels.qrels_name and j.source_version = latest_qrels.source_version
        where q.query_set = ? and q.source_version = ? and j.relevance > 0
        """,
        [list(pinned), list(pinned.values()), name, version],
    ).fetchall()
    return GoldSource("query_judgments", column, corpus, query_set=name, known_ids=frozenset(r[0] for r in judged))


def gold_source(
    con,
    path: Path,
    *,
    squad_idx_column: str,
    squad_split: str,
    gold_doc_id_column: str,
    corpus: str | None,
    gold_query_id_column: str,
    query_set: str | None,
) -> GoldSource:
    """The gold source the loader options declare: ``corpus`` or ``query_set``, else SQuAD."""
    if corpus is not None and query_set is not None:
        raise UserError(
            f"{path}: name the pairs' gold by corpus (a document) or by query_set (a judged query), not both"
        )
    if corpus is not None:
        return _document_source(con, path, gold_doc_id_column, corpus)
    if query_set is not None:
        return _query_source(con, path, gold_query_id_column, query_set)
    return _squad_source(con, squad_idx_column, squad_split)
