"""The query sets and corpora a retrieval run reads from the marts, and the versions it pins.

Query sets: ``pairs`` (the pair sets the study ingests), ``pairs:<name>``,
``squad_questions:<split>`` (each question's gold: its own context) and ``queries:<name>`` (a
corpus query set, ingest/retrieval/corpus.py; its judgments are its qrels). Each is stored under a
name (``<pair set>``, ``squad_questions_<split>``, ``queries_<name>``).
"""

from __future__ import annotations

from biaswh.compute.retrieval.config import RetrievalConfig
from biaswh.compute.retrieval.runner import Corpus, Query
from biaswh.warehouse.errors import UserError
from biaswh.warehouse.runs.parameters import pinned_inputs, pinned_version


def _pair_queries(con, names: list[str], limit: int | None) -> dict[str, list[Query]]:
    rows = con.execute(
        """
        with pairs as (
            select *, dense_rank() over (partition by pair_set order by source_row) as pair_number
            from marts.fct_pair_gold_documents
        )
        select v.pair_set, v.pair_id, v.variant, v.corpus_split, v.query_text, v.gold_doc_id
        from marts.fct_query_variants v
        inner join pairs p on v.pair_set = p.pair_set and v.pair_id = p.pair_id
        where list_contains(?, v.pair_set) and (? is null or p.pair_number <= ?)
        order by v.pair_set, p.source_row, v.variant
        """,
        [names, limit, limit],
    ).fetchall()
    sets: dict[str, list[Query]] = {name: [] for name in names}
    for pair_set, pair_id, variant, split, text, gold in rows:
        sets[pair_set].append(Query(pair_id, variant, split, text, gold))
    empty = [name for name, queries in sets.items() if not queries]
    if empty:
        raise UserError(f"[retrieval] query set 'pairs:{empty[0]}': no such pair set in marts.fct_query_variants")
    return sets


def _squad_queries(con, split: str, limit: int | None) -> dict[str, list[Query]]:
    rows = con.execute(
        "select row_idx, question, doc_id from marts.fct_squad_questions where split = ? order by row_idx"
        + (" limit ?" if limit is not None else ""),
        [split] + ([limit] if limit is not None else []),
    ).fetchall()
    if not rows:
        raise UserError(
            f"[retrieval] query set 'squad_questions:{split}': no questions for the SQuAD dataset "
            f'{split!r}; ingest it (source = "squad", name = "{split}") first'
        )
    return {f"squad_questions_{split}": [Query(str(i), "question", split, q, d) for i, q, d in rows]}


def corpus_query_rows(con, name: str) -> list[tuple]:
    """(query_id, query_text, corpus) of corpus query set ``name`` in source order; refused when unknown."""
    rows = con.execute(
        "select query_id, query_text, corpus from marts.fct_corpus_queries where query_set = ? order by source_row",
        [name],
    ).fetchall()
    if not rows:
        raise UserError(
            f"query set 'queries:{name}': no such corpus query set in marts.fct_corpus_queries; ingest it"
            f' (source = "corpus_queries", name = "{name}") first'
        )
    return rows


def _corpus_queries(con, name: str, limit: int | None) -> dict[str, list[Query]]:
    rows = corpus_query_rows(con, name)[:limit] if limit is not None else corpus_query_rows(con, name)
    return {f"queries_{name}": [Query(q, "question", corpus, text, None) for q, text, corpus in rows]}


def load_query_sets(
    con, config: RetrievalConfig, limit: int | None, *, run_id: str | None = None
) -> tuple[dict[str, list[Query]], dict[str, str]]:
    """Every configured query set (first ``limit`` pairs/questions only when set) and each set's kind.

    ``pairs`` means the pair sets the study run ingested (its pinned inputs), never every
    pair set in the warehouse; ``pairs:<name>`` names one.
    """
    sets: dict[str, list[Query]] = {}
    kinds: dict[str, str] = {}
    for name in config.query_sets:
        if name == "pairs" or name.startswith("pairs:"):
            if name == "pairs":
                names = sorted(pinned_inputs(con, run_id, "query_pairs")) if run_id else []
                if not names:
                    raise UserError(
                        "[retrieval] query set 'pairs' means the pair sets this study ingests, and it "
                        "ingests none: add a source = \"pairs\" [[ingest]] step or name 'pairs:<name>'"
                    )
            else:
                names = [name.split(":", 1)[1]]
            found = _pair_queries(con, names, limit)
            kinds.update({n: "pairs" for n in found})
        elif name.startswith("queries:"):
            found = _corpus_queries(con, name.split(":", 1)[1], limit)
            kinds.update({n: "questions" for n in found})
        else:
            found = _squad_queries(con, name.split(":", 1)[1], limit)
            kinds.update({n: "questions" for n in found})
        sets.update(found)
    if not any(sets.values()):
        raise UserError("[retrieval] no queries to run: ingest a pair set or name a query set")
    return sets, kinds


def gold_query_sets(con, pair_sets: list[str]) -> list[str]:
    """The stored names (``queries_<name>``) of the corpus query sets whose queries are these pairs' gold.

    Such a pair (``gold_kind = 'query_judgments'``) is judged by its gold query's qrels; dbt pins
    them per run (``int_retrieval_pair_judgments_pinned``), and the run records the version of
    each gold query set it read (:func:`pin_read_versions`).
    """
    rows = con.execute(
        "select distinct gold_query_set from marts.fct_pair_gold_documents"
        " where list_contains(?, pair_set) and gold_kind = 'query_judgments' order by 1",
        [pair_sets],
    ).fetchall()
    return [f"queries_{r[0]}" for r in rows]


def pin_read_versions(
    con, run_id: str, *, pair_sets: list[str], corpus_splits: set[str], query_sets: tuple[str, ...] = ()
) -> None:
    """Check the marts hold the versions the run pinned, and pin the inputs it read but did not ingest.

    A mismatch means the marts were not rebuilt after an ingest; reading them would mix versions.
    ``query_sets``: the stored names of the query sets read (``queries_<name>`` are corpus query sets).
    """
    wanted = [
        ("query_pairs", name, "select distinct source_version from marts.fct_query_variants where pair_set = ?")
        for name in pair_sets
    ]
    wanted += [
        (
            "corpus_queries",
            name.removeprefix("queries_"),
            "select distinct source_version from marts.fct_corpus_queries where query_set = ?",
        )
        for name in query_sets
        if name.startswith("queries_")
    ]
    sources = dict(
        con.execute(
            "select split, any_value(corpus_source) from marts.dim_corpus_documents where list_contains(?, split)"
            " group by split",
            [sorted(corpus_splits)],
        ).fetchall()
    )
    wanted += [
        (
            "squad" if sources.get(split, "squad") == "squad" else "corpus",
            split,
            "select distinct source_version from marts.dim_corpus_documents where split = ?",
        )
        for split in sorted(corpus_splits)
    ]
    for dataset, name, query in wanted:
        in_marts = [r[0] for r in con.execute(query, [name]).fetchall()]
        pinned = pinned_version(con, run_id, dataset, name)
        if len(in_marts) != 1 or (pinned is not None and in_marts[0] != pinned):
            raise UserError(
                f"the marts hold version(s) {in_marts} of {dataset} {name!r} but this run read version "
                f"{pinned}: run `biaswh build` and try again"
            )
        if pinned is None:
            con.execute("insert into raw.run_inputs values (?, ?, ?, ?)", [run_id, dataset, name, in_marts[0]])


def load_corpora(con, splits: set[str]) -> dict[str, Corpus]:
    """The corpus of each split; a split without documents is refused."""
    corpora = {}
    for split in sorted(splits):
        rows = con.execute(
            "select doc_id, document_text from marts.dim_corpus_documents where split = ? order by doc_id", [split]
        ).fetchall()
        if not rows:
            raise UserError(
                f"the corpus {split!r} has no documents (marts.dim_corpus_documents): "
                "ingest that SQuAD dataset or corpus and build before retrieving"
            )
        corpora[split] = Corpus([r[0] for r in rows], [r[1] for r in rows])
    return corpora
