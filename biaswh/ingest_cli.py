"""``biaswh ingest corpus | corpus-queries | qrels``: any corpus, its queries and its judgments.

The same loaders as the study sources ``corpus``, ``corpus_queries`` and ``qrels``
(ingest/corpus.py, ingest/qrels.py), for loading by hand before a study or ``biaswh sql``.
"""

from __future__ import annotations

import argparse


def add_parsers(sources) -> None:
    """Add the corpus, corpus-queries and qrels subcommands to ``biaswh ingest``."""
    corpus = sources.add_parser(
        "corpus",
        help="a retrieval corpus: BEIR folder, MS MARCO .tsv, JSONL/JSON/CSV/Parquet, or text/Markdown files",
    )
    corpus.add_argument("path")
    corpus.add_argument("--name", help="corpus name (default: the file or folder name)")
    corpus.add_argument(
        "--unit", choices=("file", "line", "heading"), default="file", help="text files: one document per"
    )
    corpus.add_argument("--id-column")
    corpus.add_argument("--text-column", default="text")
    corpus.add_argument("--title-column")

    queries = sources.add_parser(
        "corpus-queries",
        help="queries over an ingested corpus: BEIR queries.jsonl, .tsv, JSONL/CSV/Parquet, Markdown, TREC topics",
    )
    queries.add_argument("path")
    queries.add_argument("--corpus", required=True, help="the ingested corpus the queries ask")
    queries.add_argument("--name", help="query set name, as queries:<name> (default: the file or folder name)")
    queries.add_argument("--id-column")
    queries.add_argument("--text-column", default="text")
    queries.add_argument(
        "--format", choices=("trec_topics",), help="read a TREC topics file (also when it opens with <top>)"
    )
    queries.add_argument("--topic-field", choices=("title", "desc", "narr"), default="title")

    qrels = sources.add_parser("qrels", help="relevance judgments: BEIR qrels .tsv, TREC qrels, CSV or JSON")
    qrels.add_argument("path")
    qrels.add_argument("--query-set", required=True, help="queries:<name>, squad_questions:<split> or pairs:<name>")
    qrels.add_argument("--name", help="qrels name (default: the file name without suffix)")


def dispatch(args: argparse.Namespace) -> bool:
    """Run ``biaswh ingest corpus|corpus-queries|qrels``; False when ``args`` is another command."""
    if args.command != "ingest" or args.source not in ("corpus", "corpus-queries", "qrels"):
        return False
    from ingest.corpus import load_corpus, load_corpus_queries
    from ingest.qrels import load_qrels
    from warehouse.connection import open_warehouse

    with open_warehouse() as con:
        if args.source == "corpus":
            result = load_corpus(
                con,
                args.path,
                name=args.name,
                unit=args.unit,
                id_column=args.id_column,
                text_column=args.text_column,
                title_column=args.title_column,
            )
        elif args.source == "corpus-queries":
            result = load_corpus_queries(
                con,
                args.path,
                corpus=args.corpus,
                name=args.name,
                id_column=args.id_column,
                text_column=args.text_column,
                format=args.format,
                topic_field=args.topic_field,
            )
        else:
            result = load_qrels(con, args.path, query_set=args.query_set, name=args.name)
    print(result.message)
    return True
