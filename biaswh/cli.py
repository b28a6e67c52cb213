"""``biaswh``: the one console command, a thin layer over the packages.

The CLI is the composition root: it alone imports every layer (ingest, dbt, analysis,
dashboards) and chains them; no layer imports a later one.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys

# LanceDB's Rust core logs deprecation warnings per query to stderr; keep errors only
# (a user's own LANCEDB_LOG wins).
os.environ.setdefault("LANCEDB_LOG", "error")

# Only the argument tree's needs are imported here (`--help` answers at once); each command imports
# its own modules when it runs (duckdb, dbt, the LLM client...): tests/biaswh/test_cli_imports.py.
from biaswh import cli_help, diff_cli, generate_cli, ingest_cli  # noqa: E402  (after the environment the imports below read)
from biaswh.arguments import VersionAction, number, ray_address  # noqa: E402
from biaswh.signals import helper_threads_without_ctrl_c, is_interrupted_query  # noqa: E402
from warehouse.config_schema import (  # noqa: E402
    CUTOFF,
    POSITIVE_INTEGER,
)
from warehouse.errors import UserError  # noqa: E402


class _Parser(argparse.ArgumentParser):
    """argparse with its mistakes in one line (``biaswh run: error: ...``), exit code 2, like every other error."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="biaswh", description="The bias warehouse: reproducible AI-bias studies on DuckDB.")
    parser.add_argument(
        "--version", action=VersionAction, help="show the package version and the checkout's git commit, and exit"
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    ingest = commands.add_parser("ingest", help="load a source into the raw schema")
    sources = ingest.add_subparsers(dest="source", required=True, metavar="SOURCE")
    squad = sources.add_parser("squad", help="SQuAD v1.1: official JSON, JSONL, Parquet, or hf:squad")
    squad.add_argument("path", help="a local file, or hf:squad to load from Hugging Face")
    squad.add_argument("--split", default="train", help="the split to read (default: train)")
    squad.add_argument(
        "--name",
        help="dataset name to store the rows under, as corpora, pairs and query sets refer to it (default: the split)",
    )
    ingest_cli.add_parsers(sources)
    vectors = sources.add_parser(
        "vectors",
        help="word vectors for WEAT: word2vec .bin/.txt, GloVe, fastText .vec,"
        " .npz (words, vectors) or a LanceDB folder",
    )
    vectors.add_argument("path", help="the vectors file or LanceDB folder")
    vectors.add_argument("--name", required=True, help="the embedding's name, as studies refer to it")
    vectors.add_argument(
        "--format",
        default="auto",
        choices=["auto", "word2vec_binary", "word2vec_text", "glove_text", "fasttext_vec", "npz", "lancedb"],
        help="the file's format (default: auto, detected from the file)",
    )
    vectors.add_argument("--table", help="table to read when the path is a LanceDB folder")
    weat_tests = sources.add_parser("weat-tests", help="WEAT test definitions (YAML/JSON) or builtin:caliskan2017")
    weat_tests.add_argument("path", help="a YAML/JSON test file, or builtin:caliskan2017 / builtin:wefe_weat")
    weat_tests.add_argument("--name", help="test set name (default: the file's name field)")

    build = commands.add_parser("build", help="run `dbt build` (models, data tests, unit tests)")
    build.epilog = (
        "Any further arguments (e.g. --select tag:dialect, a study family's models) are passed to dbt build."
        " dbt's per-node output goes to $BIASWH_HOME/dbt/logs/dbt-build.log; -v shows it here."
    )
    build.add_argument("-v", "--verbose", action="store_true", help="show dbt's own output")
    rebuild = commands.add_parser("rebuild", help="recompute one run's rows in every run-keyed mart, on purpose")
    rebuild.add_argument("--run", required=True, help="the run_id (see dim_runs)")

    analyze = commands.add_parser("analyze", help="run a study's analysis steps on the built marts")
    analyze.add_argument("study", help="study config (TOML)")
    analyze.add_argument("--run", help="the study run to analyse (default: the study's latest succeeded run)")

    dashboards = commands.add_parser("dashboards", help="write the static dashboard site")
    dashboards.add_argument("--out", help="output folder (default: $BIASWH_HOME/site)")

    export = commands.add_parser(
        "export", help="write a study run's page tables: csv/parquet (stored values), latex/markdown (for papers)"
    )
    export.add_argument("study", help="the study: its config (TOML) or its name")
    export.add_argument("--run", help="the study run (default: the study's latest succeeded run)")
    export.add_argument(
        "--format",
        required=True,
        choices=("csv", "parquet", "latex", "markdown"),
        dest="export_format",
        help="csv/parquet: the stored values; latex/markdown: the page's tables for a paper",
    )
    export.add_argument("--out", default="exports", help="output folder (default: ./exports)")

    run = commands.add_parser("run", help="run a study end to end: ingest, build, jobs, analyze, dashboards")
    run.add_argument(
        "study", nargs="+", help="study config(s) (TOML); several run in turn in this one process, like `make demo`"
    )
    run.add_argument("--limit", type=number(POSITIVE_INTEGER), help="only the first N pairs/queries: a quick dry run")
    run.add_argument(
        "--compute", choices=("local", "ray"), help="where the compute jobs run (default: the study's [compute] engine)"
    )
    run.add_argument(
        "--target",
        choices=("local", "spark"),
        default="local",
        help="where dbt builds the models: local (DuckDB) or spark (dbt-spark; marts copied into DuckDB)",
    )
    run.add_argument(
        "--ray-address", type=ray_address, help="Ray cluster to use: auto, or ray://host:10001 (implies --compute ray)"
    )
    run.add_argument(
        "--corpus-shards",
        type=number(POSITIVE_INTEGER),
        help="with Ray: retrieve over N corpus shards, one per worker, merged exactly ([compute] corpus_shards)",
    )

    generate_cli.add_parser(commands)
    diff_cli.add_parser(commands)

    trec = commands.add_parser("trec", help="export or import TREC run files (qid Q0 docid rank score tag)")
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

    peek = commands.add_parser(
        "peek",
        help="show one pair of the study's latest succeeded run: its variants,"
        " each retriever's top k, where the gold sits",
    )
    peek.add_argument("study", help="study config (TOML)")
    peek.add_argument("--pair", required=True, help="pair id")
    peek.add_argument("-k", type=number(CUTOFF), default=5, help="hits shown per retriever and variant (default 5)")

    search = commands.add_parser("search", help="search a study's corpus by hand")
    search.add_argument("query", help="the query text")
    search.add_argument("--study", required=True, help="study config (TOML) whose corpus and settings to use")
    search.add_argument("--retriever", default="bm25", help="bm25, dense or hybrid (default bm25)")
    search.add_argument("-k", type=number(CUTOFF), default=10, help="hits to show (default 10)")

    sql = commands.add_parser("sql", help="run ad hoc SQL against the warehouse (read-only)")
    sql.add_argument("query", help="one SQL statement; unqualified names resolve through marts, analysis, ..., raw")
    sql.add_argument(
        "--format",
        choices=["table", "csv", "json", "parquet"],
        default="table",
        help="output: an aligned table with rounded numbers (default), csv, json, or parquet (needs --out)",
    )
    sql.add_argument("--csv", action="store_true", help="same as --format csv")
    sql.add_argument("--out", help="write the result to this file instead of the terminal")
    commands.add_parser("shell", help="an interactive read-only SQL prompt on the warehouse")
    from biaswh.variants_cli import add_variants_parser

    add_variants_parser(commands)
    cli_help.teach(parser)
    return parser


def _trec(args) -> None:
    from compute.retrieval.trec_warehouse import export_trec, import_trec
    from warehouse.connection import open_warehouse

    if args.trec_command == "export":
        with open_warehouse(read_only=True) as con:
            n = export_trec(con, run_id=args.run, retriever=args.retriever, path=args.out, query_set=args.query_set)
        print(f"wrote {n:,} lines to {args.out}")
    else:
        with open_warehouse() as con:
            run_id, n = import_trec(con, args.path, query_set=args.query_set, corpus_split=args.corpus_split)
        print(f"imported {n:,} rows from {args.path} as run {run_id}")


def _writes(args) -> bool:
    """Whether the command writes the warehouse (and so holds the command lock for its whole life)."""
    return args.command in ("ingest", "build", "rebuild", "analyze", "run") or (
        args.command == "trec" and args.trec_command == "import"
    )


def _refuse_before_work(args, extra: list[str]) -> None:
    """The checks that need no warehouse: outputs that would reach it, dbt options that would rewrite it."""
    from biaswh.output_options import check_output_options

    check_output_options(args)
    if args.command == "build":
        from warehouse.dbt_options import refuse_rewriting_options

        refuse_rewriting_options(extra)


def main(argv: list[str] | None = None) -> int:
    """Run the ``biaswh`` command with ``argv`` (default: the process's arguments); return its exit code."""
    parser = _parser()
    argv = sys.argv[1:] if argv is None else argv
    args, extra = parser.parse_known_args(argv)
    if extra and args.command != "build":
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    # After parsing: `--help` and argument errors answer without loading libraries.
    with helper_threads_without_ctrl_c():
        import duckdb

    from warehouse.command_lock import exclusive_command

    try:
        _refuse_before_work(args, extra)
        with exclusive_command(f"biaswh {' '.join(argv)}") if _writes(args) else contextlib.nullcontext():
            if _writes(args):
                from warehouse.connection import refuse_if_busy

                refuse_if_busy()  # before seconds of imports: a warehouse busy at the start is named at once
            _dispatch(args, extra)
    except UserError as exc:
        for line in str(exc).splitlines() or [type(exc).__name__]:  # a config check lists every mistake, one a line
            print(f"biaswh: error: {line}", file=sys.stderr)
        if getattr(exc, "detail", ""):  # DuckDB's hint, candidates and caret line, as DuckDB wrote them
            print(exc.detail, file=sys.stderr)
        return getattr(exc, "exit_code", 2)  # 1 when the input was fine but the endpoint failed every request
    except (OSError, duckdb.IOException) as exc:
        # A full disk, a vanished folder: the step that was writing rolled back; say so in one line.
        print(
            f"biaswh: error: {str(exc).splitlines()[0] if str(exc) else type(exc).__name__}"
            " (the step that was writing was rolled back)",
            file=sys.stderr,
        )
        return 1
    except KeyboardInterrupt:
        return _interrupted()
    except RuntimeError as exc:
        if not is_interrupted_query(exc):  # DuckDB's word for a Ctrl-C during a query
            raise
        return _interrupted()
    return 0


def _interrupted() -> int:
    print("biaswh: interrupted; the warehouse is unchanged by the step that was running", file=sys.stderr)
    return 130


def _dispatch(args, extra: list[str]) -> None:
    """Run the parsed command, importing only what it needs (`biaswh sql` never loads dbt or the pipeline)."""
    if args.command == "shell":
        from biaswh import sql_shell

        sql_shell.shell()
        return
    if args.command == "sql":
        from biaswh import adhoc_sql

        adhoc_sql.print_sql(args.query, output_format="csv" if args.csv else args.format, out=args.out)
        return
    if ingest_cli.dispatch(args):
        return
    if args.command == "diff":
        print("\n".join(diff_cli.diff_lines(args.run_a, args.run_b)))
        return
    from biaswh import pipeline

    if args.command == "ingest" and args.source == "squad":
        print(ingest_cli.ingest_squad(args.path, split=args.split, name=args.name).message)
    elif args.command == "ingest" and args.source == "vectors":
        print(ingest_cli.ingest_word_vectors(args.path, name=args.name, format=args.format, table=args.table).message)
    elif args.command == "ingest" and args.source == "weat-tests":
        print(ingest_cli.ingest_weat_tests(args.path, name=args.name).message)
    elif args.command == "build":
        print(pipeline.dbt_build(extra, quiet=not args.verbose).line)
    elif args.command == "rebuild":
        from biaswh.rebuild import rebuild_run

        print(rebuild_run(args.run).line)
    elif args.command == "analyze":
        print(f"analysed study run {pipeline.analyze(args.study, run_id=args.run)}")
    elif args.command == "dashboards":
        print(f"dashboard site: {pipeline.dashboards(args.out)}")
    elif args.command == "export":
        print(pipeline.export(args.study, run_id=args.run, output_format=args.export_format, out=args.out).line)
    elif args.command == "run":
        options = dict(
            limit=args.limit,
            compute=args.compute,
            ray_address=args.ray_address,
            corpus_shards=args.corpus_shards,
            target=args.target,
        )
        print(f"dashboard site: {pipeline.run_studies(args.study, **options)}")
    elif args.command == "generate":
        print(generate_cli.generate_answers(args).message)
    elif args.command == "variants":
        from biaswh.variants_cli import run_variants

        run_variants(args)
    elif args.command == "trec":
        _trec(args)
    elif args.command == "peek":
        from biaswh.inspection import peek as peek_pair

        print(peek_pair(args.study, args.pair, k=args.k))
    elif args.command == "search":
        from biaswh.inspection import search as search_corpus

        print(search_corpus(args.study, args.query, retriever=args.retriever, k=args.k))


if __name__ == "__main__":
    sys.exit(main())
