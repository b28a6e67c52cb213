"""``biaswh trec export | import``: a run's ranked results as a TREC run file, or a run file as a new run."""

from __future__ import annotations

from biaswh.cli_help import HOME
from biaswh.command_registry import register_command
from biaswh.output_options import register_output_options

register_output_options("trec export", "out", positional=True)


def _arguments(trec) -> None:
    trec_commands = trec.add_subparsers(dest="trec_command", required=True, metavar="ACTION")
    export = trec_commands.add_parser("export", help="write one retriever's results of a run")
    export.add_argument("out", help="the run file to write")
    export.add_argument("--run", required=True, help="the run_id (see raw.retrieval_runs)")
    export.add_argument("--retriever", required=True, help="e.g. bm25, dense, hybrid_rrf")
    export.add_argument("--query-set", help="needed when the run holds several query sets")
    imported = trec_commands.add_parser("import", help="load a run file as a new run (kind trec_import)")
    imported.add_argument("path", help="the TREC run file (qid Q0 docid rank score tag)")
    imported.add_argument(
        "--query-set", required=True, help="the query set the qids belong to (e.g. squad_questions_train)"
    )
    imported.add_argument("--corpus-split", help="the corpus the docids index (default and only choice: the set's)")


@register_command(
    "trec",
    summary="export or import TREC run files (qid Q0 docid rank score tag)",
    arguments=_arguments,
    order=100,
    writes=lambda args: args.trec_command == "import",
    explained={
        "trec": (
            "Export a run's ranked results as a TREC run file, or import one as a new run.",
            "biaswh trec export bm25.trec --run 0123abcd... --retriever bm25",
            f"export writes the file; import adds a run to {HOME}.",
        ),
        "trec export": (
            "Write one retriever's ranked results of a run (qid is query_id/variant).",
            "biaswh trec export bm25.trec --run 0123abcd... --retriever bm25",
            "Writes the file OUT.",
        ),
        "trec import": (
            "Load a TREC run file as a new run (retriever trec:<tag>), checked against the query set.",
            "biaswh trec import other.trec --query-set queries:my_queries",
            f"Adds a run to {HOME}.",
        ),
    },
)
def trec(args) -> None:
    """Write one retriever's results of a run as a TREC run file, or load one as a new run."""
    from biaswh.compute.retrieval.trec_warehouse import export_trec, import_trec
    from biaswh.warehouse.database.connection import open_warehouse

    if args.trec_command == "export":
        with open_warehouse(read_only=True) as con:
            n = export_trec(con, run_id=args.run, retriever=args.retriever, path=args.out, query_set=args.query_set)
        print(f"wrote {n:,} lines to {args.out}")
    else:
        with open_warehouse() as con:
            run_id, n = import_trec(con, args.path, query_set=args.query_set, corpus_split=args.corpus_split)
        print(f"imported {n:,} rows from {args.path} as run {run_id}")
