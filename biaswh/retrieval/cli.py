"""``biaswh ingest squad | corpus | corpus-queries``: SQuAD, any corpus and its queries.

The same loaders as the study sources ``squad``, ``corpus`` and ``corpus_queries``
(ingest/retrieval/), for loading by hand before a study or ``biaswh sql``; the judgments
(``biaswh ingest qrels``) are the evaluation family's (biaswh/evaluation/cli.py).
"""

from __future__ import annotations

from biaswh.cli_help import LOADS
from biaswh.command_registry import register_command
from biaswh.common.loading import load_by_hand


def _squad_arguments(squad) -> None:
    squad.add_argument("path", help="a local file, or hf:squad to load from Hugging Face")
    squad.add_argument("--split", default="train", help="the split to read (default: train)")
    squad.add_argument(
        "--name",
        help="dataset name to store the rows under, as corpora, pairs and query sets refer to it (default: the split)",
    )


@register_command(
    "ingest squad",
    summary="SQuAD v1.1: official JSON, JSONL, Parquet, or hf:squad",
    arguments=_squad_arguments,
    order=10,
    writes=True,
    explained={
        "ingest squad": (
            "Load SQuAD v1.1 questions and contexts.",
            "biaswh ingest squad train.parquet --split train",
            LOADS,
        )
    },
)
def ingest_squad(args) -> None:
    """Load a SQuAD dataset (file or ``hf:squad``) into the warehouse."""
    from biaswh.ingest.retrieval.squad import load_squad

    load_by_hand(load_squad, args.path, split=args.split, name=args.name)


def _corpus_arguments(corpus) -> None:
    corpus.add_argument(
        "path", help="a BEIR folder, corpus.jsonl, MS MARCO .tsv, JSONL/CSV/Parquet, or text/Markdown files"
    )
    corpus.add_argument("--name", help="corpus name (default: the file or folder name)")
    corpus.add_argument(
        "--unit", choices=("file", "line", "heading"), default="file", help="text files: one document per"
    )
    corpus.add_argument("--id-column", help="column holding the document id (JSONL/CSV/Parquet)")
    corpus.add_argument("--text-column", default="text", help="column holding the text (default: text)")
    corpus.add_argument("--title-column", help="column holding the title, if any")


@register_command(
    "ingest corpus",
    summary="a retrieval corpus: BEIR folder, MS MARCO .tsv, JSONL/JSON/CSV/Parquet, or text/Markdown files",
    arguments=_corpus_arguments,
    order=30,
    writes=True,
    explained={
        "ingest corpus": (
            "Load a corpus, keeping each document's own id.",
            "biaswh ingest corpus my-corpus --name my_corpus",
            LOADS,
        )
    },
)
def ingest_corpus(args) -> None:
    """Load a corpus (any of the formats its ``--help`` names) into the warehouse."""
    from biaswh.ingest.retrieval.corpus import load_corpus

    columns = {"id_column": args.id_column, "text_column": args.text_column, "title_column": args.title_column}
    load_by_hand(load_corpus, args.path, name=args.name, unit=args.unit, **columns)


def _queries_arguments(queries) -> None:
    queries.add_argument(
        "path", help="queries.jsonl (or its BEIR folder), .tsv, JSONL/CSV/Parquet, Markdown or TREC topics"
    )
    queries.add_argument("--corpus", required=True, help="the ingested corpus the queries ask")
    queries.add_argument("--name", help="query set name, as queries:<name> (default: the file or folder name)")
    queries.add_argument("--id-column", help="column holding the query id (JSONL/CSV/Parquet)")
    queries.add_argument("--text-column", default="text", help="column holding the query text (default: text)")
    queries.add_argument(
        "--format", choices=("trec_topics",), help="read a TREC topics file (also when it opens with <top>)"
    )
    queries.add_argument(
        "--topic-field",
        choices=("title", "desc", "narr"),
        default="title",
        help="TREC topics: the field that is the query text (default: title)",
    )


@register_command(
    "ingest corpus-queries",
    summary="queries over an ingested corpus: BEIR queries.jsonl, .tsv, JSONL/CSV/Parquet, Markdown, TREC topics",
    arguments=_queries_arguments,
    order=40,
    writes=True,
    explained={
        "ingest corpus-queries": (
            "Load the queries of a corpus.",
            "biaswh ingest corpus-queries my-corpus --corpus my_corpus --name my_queries",
            LOADS,
        )
    },
)
def ingest_corpus_queries(args) -> None:
    """Load the queries of an ingested corpus into the warehouse."""
    from biaswh.ingest.retrieval.corpus import load_corpus_queries

    columns = {"id_column": args.id_column, "text_column": args.text_column}
    topics = {"format": args.format, "topic_field": args.topic_field}
    load_by_hand(load_corpus_queries, args.path, corpus=args.corpus, name=args.name, **columns, **topics)
