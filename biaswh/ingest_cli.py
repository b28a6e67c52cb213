"""``biaswh ingest pairs | corpus | corpus-queries | qrels``: pairs, any corpus, its queries and judgments;
and the loaders ``biaswh ingest squad | vectors | weat-tests`` call (:func:`ingest_squad` and the like).

The same loaders as the study sources ``pairs``, ``corpus``, ``corpus_queries`` and ``qrels``
(ingest/dialect/pairs.py, ingest/retrieval/corpus.py, ingest/retrieval/qrels.py), for loading by hand before a study or
``biaswh sql``.
"""

from __future__ import annotations

import argparse

from warehouse.errors import UserError


def variant_mapping(pairs: list[str] | None) -> dict[str, str] | None:
    """The ``--variant FILE_COLUMN=VARIANT`` options as a mapping, or None when none were given."""
    if not pairs:
        return None
    mapping = {}
    for item in pairs:
        label, sep, column = item.partition("=")
        if not sep or not label or not column:
            raise UserError(f"--variant expects LABEL=COLUMN, got {item!r}")
        mapping[label] = column
    return mapping


def add_parsers(sources) -> None:
    """Add the pairs, corpus, corpus-queries and qrels subcommands to ``biaswh ingest``."""
    pairs = sources.add_parser("pairs", help="paired queries (JSON, JSONL or CSV), stored one row per variant")
    pairs.add_argument("path", help="the pairs file: JSON, JSONL or CSV, one row per pair")
    pairs.add_argument("--name", help="pair set name (default: the file name without suffix)")
    pairs.add_argument(
        "--variant",
        action="append",
        metavar="LABEL=COLUMN",
        help="a variant and its column; repeat for each (default: sae=sae_query aae=aave_query)",
    )
    pairs.add_argument("--id-column", default="id", help="column holding the pair id (default: id)")
    pairs.add_argument(
        "--squad-idx-column", default="squad_idx", help="column holding the gold SQuAD row (default: squad_idx)"
    )
    pairs.add_argument("--squad-split", default="train", help="SQuAD split the squad_idx values index")
    pairs.add_argument("--corpus", help="gold = a document of this corpus, by source id (--gold-doc-id-column)")
    pairs.add_argument(
        "--gold-doc-id-column",
        default="gold_doc_id",
        help="column holding the gold document's source id (with --corpus)",
    )
    pairs.add_argument("--query-set", help="gold = a judged query of queries:<name>, by id (--gold-query-id-column)")
    pairs.add_argument(
        "--gold-query-id-column", default="gold_query_id", help="column holding the gold query's id (with --query-set)"
    )
    pairs.add_argument("--no-cleanup", action="store_true", help="store the text as is, without the light clean-up")
    pairs.add_argument(
        "--cleanup",
        choices=("light", "seed_compatible", "none"),
        default="light",
        help="clean-up rules: light (default, corrected), seed_compatible (the original notebook's), none",
    )

    corpus = sources.add_parser(
        "corpus",
        help="a retrieval corpus: BEIR folder, MS MARCO .tsv, JSONL/JSON/CSV/Parquet, or text/Markdown files",
    )
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

    queries = sources.add_parser(
        "corpus-queries",
        help="queries over an ingested corpus: BEIR queries.jsonl, .tsv, JSONL/CSV/Parquet, Markdown, TREC topics",
    )
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

    qrels = sources.add_parser("qrels", help="relevance judgments: BEIR qrels .tsv, TREC qrels, CSV or JSON")
    qrels.add_argument("path", help="BEIR qrels .tsv, TREC qrels, CSV or JSON")
    qrels.add_argument("--query-set", required=True, help="queries:<name>, squad_questions:<split> or pairs:<name>")
    qrels.add_argument("--name", help="qrels name (default: the file name without suffix)")


def dispatch(args: argparse.Namespace) -> bool:
    """Run ``biaswh ingest pairs|corpus|corpus-queries|qrels``; False when ``args`` is another command."""
    if args.command != "ingest" or args.source not in ("pairs", "corpus", "corpus-queries", "qrels"):
        return False
    from ingest.dialect.pairs import load_pairs
    from ingest.retrieval.corpus import load_corpus, load_corpus_queries
    from ingest.retrieval.qrels import load_qrels
    from warehouse.connection import open_warehouse

    with open_warehouse() as con:
        if args.source == "pairs":
            options = {
                "name": args.name,
                "variants": variant_mapping(args.variant),
                "id_column": args.id_column,
                "squad_idx_column": args.squad_idx_column,
                "squad_split": args.squad_split,
                "corpus": args.corpus,
                "gold_doc_id_column": args.gold_doc_id_column,
                "query_set": args.query_set,
                "gold_query_id_column": args.gold_query_id_column,
                "cleanup": "none" if args.no_cleanup else args.cleanup,
            }
            result = load_pairs(con, args.path, **{k: v for k, v in options.items() if v is not None})
        elif args.source == "corpus":
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


def ingest_squad(source: str, *, split: str = "train", name: str | None = None):
    """Load a SQuAD dataset (file or ``hf:squad``) into the warehouse."""
    from ingest.retrieval.squad import load_squad
    from warehouse.connection import open_warehouse

    with open_warehouse() as con:
        return load_squad(con, source, split=split, name=name)


def ingest_word_vectors(path: str, **options):
    """Load a word-vector file into the warehouse (options as :func:`ingest.weat.word_vectors.load_word_vectors`)."""
    from ingest.weat.word_vectors import load_word_vectors
    from warehouse.connection import open_warehouse

    with open_warehouse() as con:
        return load_word_vectors(con, path, **{k: v for k, v in options.items() if v is not None})


def ingest_weat_tests(path: str, *, name: str | None = None):
    """Load WEAT test definitions (a YAML/JSON file or ``builtin:<name>``) into the warehouse."""
    from ingest.weat.weat_tests import load_weat_tests
    from warehouse.connection import open_warehouse

    with open_warehouse() as con:
        return load_weat_tests(con, path, name=name)
