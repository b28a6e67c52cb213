"""What each ``biaswh`` command's own ``--help`` says: what it does, an example, and where its
results go. :func:`teach` adds it to the argument tree that ``biaswh.cli`` builds, so the option
definitions stay where they are and every page of help reads the same way.
"""

from __future__ import annotations

import argparse
import textwrap

_HOME = "the warehouse in $BIASWH_HOME (default: .warehouse/ in the checkout)"
_SITE = "$BIASWH_HOME/site/index.html"
_READS = f"Reads {_HOME}; changes nothing."
_LOADS = f"Writes raw.* of {_HOME}, in one transaction; an identical file loaded again is a no-op."

SHELL_DOT_COMMANDS = """\
dot commands:
  .help                        what the shell takes
  .tables                      every relation: schema, name, type
  .schema NAME                 NAME's columns with their types and descriptions
  .mode table|csv|json|line    how results are shown
  .quit                        leave (as does Ctrl-D)"""

# command path -> (what it does, an example, where results go)
HELP: dict[str, tuple[str, str, str]] = {
    "ingest": (
        "Load one source (SQuAD, pairs, a corpus, queries, judgments, word vectors, WEAT tests)"
        " into the raw schema, named and versioned. Studies load their own inputs; this is for"
        " loading by hand.",
        "biaswh ingest corpus my-corpus --name my_corpus",
        _LOADS,
    ),
    "ingest squad": (
        "Load SQuAD v1.1 questions and contexts.",
        "biaswh ingest squad train.parquet --split train",
        _LOADS,
    ),
    "ingest pairs": (
        "Load dialect pairs: one question in several variants with its gold (a SQuAD row, a"
        " corpus document or a judged query).",
        "biaswh ingest pairs pairs.csv --variant sae=sae_query --variant aae=aave_query",
        _LOADS,
    ),
    "ingest corpus": (
        "Load a corpus, keeping each document's own id.",
        "biaswh ingest corpus my-corpus --name my_corpus",
        _LOADS,
    ),
    "ingest corpus-queries": (
        "Load the queries of a corpus.",
        "biaswh ingest corpus-queries my-corpus --corpus my_corpus --name my_queries",
        _LOADS,
    ),
    "ingest qrels": (
        "Load relevance judgments; every query and document id is checked first.",
        "biaswh ingest qrels my-corpus/qrels/test.tsv --query-set queries:my_queries",
        _LOADS,
    ),
    "ingest vectors": ("Load word vectors for WEAT.", "biaswh ingest vectors vectors.npz --name my_embedding", _LOADS),
    "ingest weat-tests": ("Load WEAT test definitions.", "biaswh ingest weat-tests builtin:caliskan2017", _LOADS),
    "build": (
        "Build the dbt project: every model, data test and unit test.",
        "biaswh build --select tag:dialect",
        f"Writes the staging, intermediate and marts schemas of {_HOME}; dbt's log goes to"
        " $BIASWH_HOME/dbt/logs/dbt-build.log.",
    ),
    "rebuild": (
        "Recompute one run's rows in every run-keyed mart, on purpose (a finished run's rows never change otherwise).",
        "biaswh rebuild --run 0123abcd...",
        f"Replaces that run's rows in the marts of {_HOME}.",
    ),
    "analyze": (
        "Run a study's analysis steps (statistical tests, verdicts) on the built marts.",
        "biaswh analyze studies/demo.toml",
        f"Writes analysis.* of {_HOME}, keyed by the run.",
    ),
    "dashboards": (
        "Write the static dashboard site from what the warehouse holds.",
        "biaswh dashboards",
        f"Writes {_SITE} (or --out); open it in a browser, no server needed.",
    ),
    "export": (
        "Write every table of a study run's pages as files: csv or parquet hold the stored values"
        " (one column per number, with run_id and study); latex (booktabs, with tables.tex to"
        " compile) and markdown hold the page's display with significance marks and the verdict"
        " policy in each caption.",
        "biaswh export studies/demo_weat.toml --format latex --out exports/",
        f"Reads {_HOME}; writes OUT/<study>-<run>/ (default OUT: ./exports), one file per table.",
    ),
    "run": (
        "Run a study end to end: check its config, ingest its inputs, build, run its compute jobs,"
        " analyse, and write the site. Several studies run in turn in one process.",
        "biaswh run studies/demo.toml",
        f"Writes {_HOME} and the site {_SITE}; the last line printed is the site's path.",
    ),
    "generate": (
        "Answer vignettes with a model behind an OpenAI-compatible endpoint (OpenAI, vLLM, Ollama,"
        " LM Studio). Resumable: a rerun sends only what is missing or failed.",
        "biaswh generate vignettes.json --model qwq --base-url http://localhost:1234/v1 --out generations/qwq.jsonl",
        "Writes the JSONL of --out (prompt, settings, answer or failure per vignette); the"
        " silent_bias_generations ingest source loads it.",
    ),
    "trec": (
        "Export a run's ranked results as a TREC run file, or import one as a new run.",
        "biaswh trec export bm25.trec --run 0123abcd... --retriever bm25",
        f"export writes the file; import adds a run to {_HOME}.",
    ),
    "trec export": (
        "Write one retriever's ranked results of a run (qid is query_id/variant).",
        "biaswh trec export bm25.trec --run 0123abcd... --retriever bm25",
        "Writes the file OUT.",
    ),
    "trec import": (
        "Load a TREC run file as a new run (retriever trec:<tag>), checked against the query set.",
        "biaswh trec import other.trec --query-set queries:my_queries",
        f"Adds a run to {_HOME}.",
    ),
    "peek": (
        "Show one pair of a study's latest succeeded run: its variants, each retriever's top k and"
        " where the gold document sits.",
        "biaswh peek studies/demo.toml --pair 0",
        _READS,
    ),
    "search": (
        "Search a study's corpus by hand with its retriever settings.",
        'biaswh search "how do I reset my password" --study studies/demo_external_runs.toml -k 5',
        _READS,
    ),
    "sql": (
        "Run one SQL statement, read-only. Unqualified names resolve through marts, analysis,"
        " intermediate, staging and raw; writes, files and settings are refused.",
        'biaswh sql "select run_name, run_status from dim_runs"',
        _READS + " --out writes the result to a file outside $BIASWH_HOME.",
    ),
    "diff": (
        "Say what differs between two runs: config keys, inputs (version and sha256), code, and"
        " each result table whose stored rows differ (floats to 12 digits, latencies left out);"
        " 'identical' when nothing does. A run is its id or a unique start of it.",
        "biaswh diff 1f0c2a9d3b7e 8e41d7f0a2c5",
        _READS + " One line per difference group on stdout.",
    ),
    "shell": (
        "An interactive read-only SQL prompt: line editing, history (~/.biaswh_history),"
        " statements over several lines until ';'.\n\n" + SHELL_DOT_COMMANDS,
        "biaswh shell",
        _READS,
    ),
    "variants": (
        "Make dialect variants of questions: offline rules, or an LLM behind an endpoint.",
        "biaswh variants rules --squad train.parquet --sample 2000 --out rules.jsonl",
        "Writes the files its --out options name.",
    ),
    "variants rules": (
        "Turn SAE questions into AAE variants with the offline rules (each a documented eWAVE"
        " feature); or compare the rules with human-checked variants (--pairs, --report).",
        "biaswh variants rules --squad train.parquet --sample 2000 --out rules.jsonl",
        "Writes --out (a pairs file for `biaswh ingest pairs`) and --report.",
    ),
    "variants llm": (
        "Convert sampled SQuAD questions into AAE with an LLM, as the original study did.",
        "biaswh variants llm --squad train.parquet --sample 200 --model gpt-4.1-mini"
        " --base-url https://api.openai.com/v1 --out conversions.jsonl --pairs-out llm_pairs.json",
        "Writes --out (the resumable conversions cache) and --pairs-out.",
    ),
}


TOP_EPILOG = f"""\
example:
  biaswh run studies/demo.toml

Every command works on the warehouse in $BIASWH_HOME (default: .warehouse/ in the
checkout); a study run writes the site {_SITE}.
`biaswh COMMAND --help` says what a command does, with an example."""


def teach(parser: argparse.ArgumentParser) -> None:
    """Give every subcommand of ``parser`` its description and an epilog with an example and
    where its results go (:data:`HELP`)."""
    parser.epilog = TOP_EPILOG
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    for path, command in _subcommands(parser):
        if path not in HELP:
            raise KeyError(f"biaswh {path}: no help text in biaswh/cli_help.py")
        description, example, results = HELP[path]
        command.description = "\n\n".join(_wrap(part) for part in description.split("\n\n"))
        extra = f"\n\n{command.epilog}" if command.epilog else ""
        command.epilog = f"example:\n  {example}\n\n" + textwrap.fill(f"results: {results}", width=88) + extra
        command.formatter_class = argparse.RawDescriptionHelpFormatter


def _wrap(paragraph: str) -> str:
    if paragraph.startswith("dot commands:"):
        return paragraph  # a table, already laid out
    return textwrap.fill(paragraph, width=88)


def _subcommands(parser: argparse.ArgumentParser, prefix: str = ""):
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, command in action.choices.items():
                path = f"{prefix} {name}".strip()
                yield path, command
                yield from _subcommands(command, path)
