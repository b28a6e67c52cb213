"""The queries, variants and corpus documents of a query set, as a file naming them must find them.

Qrels (:mod:`biaswh.ingest.evaluation.qrels`) and imported TREC runs (:mod:`biaswh.compute.retrieval.trec_warehouse`)
name queries and documents of a query set; both are checked here, against the raw rows of the
latest version of the query set's dataset and of its corpus (in a study the ``[[ingest]]``
steps run before any ``dbt build``, so the marts may not hold that version yet). Document ids
are the ones ``marts.dim_corpus_documents`` assigns: for a SQuAD dataset 0 .. the number of
distinct normalised contexts - 1 (dbt's own ``normalise_text`` macro), for an ingested corpus
its ``raw.corpus_documents.doc_id``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import jinja2

from biaswh.ingest.common.versions import latest_version
from biaswh.warehouse.errors import InputError, UserError
from biaswh.warehouse.settings.home import DBT_PROJECT_DIR


@dataclass(frozen=True)
class QuerySetMembers:
    """What query set ``query_set`` (config syntax) holds: each query's variants and its corpus's doc ids."""

    query_set: str
    variants: dict[str, frozenset[str]]  # query id -> the variants it is asked in
    corpus: str  # the SQuAD dataset or ingested corpus its documents come from
    documents: range | frozenset[int]

    def check_query(self, path: Path, query_id: str, *, row: int, field: str) -> None:
        """Refuse a query id the query set does not hold."""
        if query_id not in self.variants:
            raise InputError(path, f"query {query_id!r} is not in query set {self.query_set}", row=row, field=field)

    def check_document(self, path: Path, doc_id: int, *, row: int, field: str) -> None:
        """Refuse a doc id the query set's corpus does not hold."""
        if doc_id not in self.documents:
            n = len(self.documents)
            ids = f"ids 0 to {n - 1}" if isinstance(self.documents, range) else "its doc_id column"
            raise InputError(
                path,
                f"document {doc_id} is not in the corpus of query set {self.query_set}"
                f" ({self.corpus!r}: {n} documents, {ids})",
                row=row,
                field=field,
            )


def query_set_table_name(query_set: str) -> str:
    """The name the retrieval job stores a configured query set under (``squad_questions:validation`` ->
    ``squad_questions_validation``, ``pairs:<name>`` -> ``<name>``, ``queries:<name>`` -> ``queries_<name>``)."""
    if query_set.startswith("squad_questions:"):
        return "squad_questions_" + query_set.split(":", 1)[1]
    if query_set.startswith("pairs:"):
        return query_set.split(":", 1)[1]
    if query_set.startswith("queries:"):
        return "queries_" + query_set.split(":", 1)[1]
    raise UserError(
        f"qrels query_set must be 'squad_questions:<split>', 'pairs:<name>' or 'queries:<name>', got {query_set!r}"
    )


def config_query_set(name: str) -> str:
    """A query set's config syntax from its stored name (``squad_questions_dev`` -> ``squad_questions:dev``,
    ``queries_x`` -> ``queries:x``, any other name -> ``pairs:<name>``); config syntax is kept as is."""
    if ":" in name:
        return name
    for prefix in ("squad_questions", "queries"):
        if name.startswith(prefix + "_"):
            return f"{prefix}:{name.removeprefix(prefix + '_')}"
    return f"pairs:{name}"


@lru_cache(maxsize=1)
def normalised_context_sql() -> str:
    """dbt's ``normalise_text('context')`` as DuckDB SQL, rendered from the macro itself (one definition).

    Its DuckDB spelling (``default__normalise_text``): the dispatching macro needs dbt's adapter.
    """
    macros = (DBT_PROJECT_DIR / "macros" / "portability" / "text.sql").read_text(encoding="utf-8")
    return jinja2.Environment().from_string(macros + "{{ default__normalise_text('context') }}").render().strip()


def _missing(path: Path, query_set: str, what: str, hint: str) -> UserError:
    return UserError(f"{path}: query set {query_set} needs {what}, which is not ingested: ingest it first ({hint})")


def _squad_documents(con, path: Path, query_set: str, split: str) -> tuple[int, range]:
    version = latest_version(con, "squad", split)
    if version is None:
        raise _missing(
            path,
            query_set,
            f"the SQuAD dataset {split!r}",
            f'a source = "squad" [[ingest]] step with name = "{split}", or `biaswh ingest squad FILE --name {split}`',
        )
    n = con.execute(
        f"select count(distinct {normalised_context_sql()}) from raw.squad_questions"
        " where split = ? and source_version = ?",
        [split, version],
    ).fetchone()[0]
    return version, range(n)


def _documents(con, path: Path, query_set: str, corpus: str) -> range | frozenset[int]:
    """The doc ids of ``corpus``: a SQuAD dataset's contexts, else an ingested corpus's documents."""
    version = latest_version(con, "corpus", corpus)
    if version is None:
        return _squad_documents(con, path, query_set, corpus)[1]
    rows = con.execute(
        "select doc_id from raw.corpus_documents where corpus = ? and source_version = ?", [corpus, version]
    ).fetchall()
    return frozenset(r[0] for r in rows)


def query_set_members(con, path: Path, query_set: str) -> QuerySetMembers:
    """The members of ``query_set`` (config syntax or stored name); an unknown set is refused naming ``path``."""
    query_set = config_query_set(query_set)
    kind, _, name = query_set.partition(":")
    if kind == "squad_questions":
        version, documents = _squad_documents(con, path, query_set, name)
        rows = con.execute(
            "select row_idx from raw.squad_questions where split = ? and source_version = ?", [name, version]
        ).fetchall()
        question = frozenset(["question"])
        return QuerySetMembers(query_set, {str(r[0]): question for r in rows}, name, documents)
    if kind == "queries":
        version = latest_version(con, "corpus_queries", name)
        if version is None:
            raise _missing(path, query_set, f"the corpus query set {name!r}", 'a source = "corpus_queries" step')
        rows = con.execute(
            "select query_id, corpus from raw.corpus_queries where query_set = ? and source_version = ?",
            [name, version],
        ).fetchall()
        corpus, question = rows[0][1], frozenset(["question"])
        documents = _documents(con, path, query_set, corpus)
        return QuerySetMembers(query_set, {r[0]: question for r in rows}, corpus, documents)
    if kind != "pairs":
        raise UserError(
            f"{path}: query set must be 'squad_questions:<split>', 'pairs:<name>' or 'queries:<name>'"
            f" (or a stored name), got {query_set!r}"
        )
    version = latest_version(con, "query_pairs", name)
    if version is None:
        raise _missing(path, query_set, f"the pair set {name!r}", 'a source = "pairs" [[ingest]] step')
    rows = con.execute(
        "select pair_id, list(distinct variant), any_value(coalesce(corpus, squad_split))"
        " from raw.query_pair_variants where pair_set = ? and source_version = ? group by pair_id",
        [name, version],
    ).fetchall()
    corpus = rows[0][2]  # a pair set searches one corpus (load_pairs' gold source)
    documents = _documents(con, path, query_set, corpus)
    return QuerySetMembers(query_set, {r[0]: frozenset(r[1]) for r in rows}, corpus, documents)
