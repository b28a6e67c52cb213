"""The bad inputs of test_bad_inputs.py, one case each: the command, the files it reads, and what its one
error line must name (the file, row and field, or the setting)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from biaswh.warehouse.settings.home import HOME_VARIABLE
from tests.conftest import DEMO_DATA

BIG = 2**31


def _squad(*, answer_start=None, document=None) -> str:
    """A one-question official SQuAD JSON, or ``document`` as given."""
    if document is None:
        answer = {"text": "gardens", "answer_start": answer_start}
        document = {
            "data": [
                {
                    "title": "t",
                    "paragraphs": [
                        {
                            "context": "Community gardens grow food.",
                            "qas": [{"id": "q", "question": "What?", "answers": [answer]}],
                        }
                    ],
                }
            ]
        }
    # allow_nan: Infinity and NaN are what a careless writer (Python's json by default) produces
    return json.dumps(document, allow_nan=True)


def study_text(body: str) -> str:
    """A study config named "bad" with ``body`` after its [study] line."""
    return '[study]\nname = "bad"\n' + body


@dataclass(frozen=True)
class Case:
    """``argv`` and ``files`` may name ``{tmp}`` (the case's folder) and ``{home}`` (the warehouse folder)."""

    argv: list[str]
    names: tuple[str, ...]  # what the one error line must contain (file, row, field or setting)
    files: dict[str, str | bytes] = field(default_factory=dict)
    home_is_a_file: bool = False
    corrupt_warehouse: bool = False
    records_a_failed_study_run: bool = False  # `biaswh run` records its own run before ingesting


TEXT_VECTORS = "2 3\nfood 0.1 0.2 0.3\ngarden -0.4 0.5 0.6\n"

QRELS_STUDY = study_text(
    'seed = 1\n[[ingest]]\nsource = "qrels"\npath = "qrels.csv"\nquery_set = "squad_questions:train"\n'
)

CASES = {
    "run --limit -1": Case(["run", "{tmp}/study.toml", "--limit", "-1"], ("argument --limit", "'-1'")),
    "run --limit 0": Case(["run", "{tmp}/study.toml", "--limit", "0"], ("argument --limit", "'0'")),
    "search -k 0": Case(["search", "q", "--study", "{tmp}/study.toml", "-k", "0"], ("argument -k", "'0'")),
    "sql empty": Case(["sql", ""], ("the query is empty",)),
    "BIASWH_HOME is a file": Case(["sql", "select 1"], (HOME_VARIABLE, "{home}", "is a file"), home_is_a_file=True),
    "BIASWH_HOME is a file (writing)": Case(
        ["ingest", "squad", str(DEMO_DATA / "squad_demo.json")],
        (HOME_VARIABLE, "{home}", "is a file"),
        home_is_a_file=True,
    ),
    "corrupt warehouse": Case(
        ["sql", "select 1"], ("{home}/warehouse.duckdb", "not a DuckDB database file"), corrupt_warehouse=True
    ),
    "corrupt warehouse (writing)": Case(
        ["ingest", "squad", str(DEMO_DATA / "squad_demo.json")],
        ("{home}/warehouse.duckdb", "not a DuckDB database file"),
        corrupt_warehouse=True,
    ),
    "squad top-level list of non-objects": Case(
        ["ingest", "squad", "{tmp}/squad.json", "--split", "x"],
        ("{tmp}/squad.json", "row 1", "must be an object"),
        files={"squad.json": "[1, 2]"},
    ),
    "squad data not a list": Case(
        ["ingest", "squad", "{tmp}/squad.json", "--split", "x"],
        ("{tmp}/squad.json", "field 'data'", "must be a list"),
        files={"squad.json": _squad(document={"data": {"title": "t"}})},
    ),
    "squad data items not objects": Case(
        ["ingest", "squad", "{tmp}/squad.json", "--split", "x"],
        ("{tmp}/squad.json", "row data[0]", "must be an object"),
        files={"squad.json": _squad(document={"data": ["t"]})},
    ),
    "squad qas not a list": Case(
        ["ingest", "squad", "{tmp}/squad.json", "--split", "x"],
        ("{tmp}/squad.json", "row data[0].paragraphs[0]", "field 'qas'"),
        files={"squad.json": _squad(document={"data": [{"paragraphs": [{"context": "c", "qas": "q"}]}]})},
    ),
    "answer_start Infinity": Case(
        ["ingest", "squad", "{tmp}/squad.json", "--split", "x"],
        ("{tmp}/squad.json", "data[0].paragraphs[0].qas[0]", "field 'answers.answer_start'", "inf is not an integer"),
        files={"squad.json": _squad(answer_start=float("inf"))},
    ),
    "answer_start 2^31": Case(
        ["ingest", "squad", "{tmp}/squad.json", "--split", "x"],
        ("{tmp}/squad.json", "field 'answers.answer_start'", f"{BIG} is out of range"),
        files={"squad.json": _squad(answer_start=BIG)},
    ),
    "answer_start 3.7": Case(
        ["ingest", "squad", "{tmp}/squad.json", "--split", "x"],
        ("{tmp}/squad.json", "field 'answers.answer_start'", "3.7 is not an integer"),
        files={"squad.json": _squad(answer_start=3.7)},
    ),
    "answer_start NaN (JSONL)": Case(
        ["ingest", "squad", "{tmp}/squad.jsonl", "--split", "x"],
        ("{tmp}/squad.jsonl", "row 1", "field 'answers.answer_start'", "nan is not an integer"),
        files={"squad.jsonl": '{"context": "c", "question": "q", "answers": {"text": ["c"], "answer_start": [NaN]}}\n'},
    ),
    "qrels doc_id 2^31": Case(
        ["run", "{tmp}/study.toml"],
        ("{tmp}/qrels.csv", "row 1", "field 'doc_id'", f"{BIG} is out of range"),
        files={"study.toml": QRELS_STUDY, "qrels.csv": f"query_id,doc_id,relevance\n0,{BIG},1\n"},
        records_a_failed_study_run=True,
    ),
    "qrels relevance 2^31 (TREC)": Case(
        ["run", "{tmp}/study.toml"],
        ("{tmp}/qrels.qrels", "row 2", "field 'relevance'", "out of range"),
        files={"study.toml": QRELS_STUDY.replace("qrels.csv", "qrels.qrels"), "qrels.qrels": f"0 0 0 1\n0 0 1 {BIG}\n"},
        records_a_failed_study_run=True,
    ),
    "qrels unknown query id": Case(
        ["run", "{tmp}/study.toml"],
        ("{tmp}/qrels.csv", "row 2", "field 'query_id'", "'64' is not in query set"),
        files={"study.toml": QRELS_STUDY, "qrels.csv": "query_id,doc_id\n0,0\n64,0\n"},
        records_a_failed_study_run=True,
    ),
    "qrels unknown document id": Case(
        ["run", "{tmp}/study.toml"],
        ("{tmp}/qrels.csv", "row 1", "field 'doc_id'", "document 28 is not in the corpus"),
        files={"study.toml": QRELS_STUDY, "qrels.csv": "query_id,doc_id\n0,28\n"},
        records_a_failed_study_run=True,
    ),
    "qrels for a SQuAD dataset not ingested": Case(
        ["run", "{tmp}/study.toml"],
        ("{tmp}/qrels.csv", "SQuAD dataset 'validation'", "ingest it first"),
        files={
            "study.toml": QRELS_STUDY.replace("squad_questions:train", "squad_questions:validation"),
            "qrels.csv": "query_id,doc_id\n0,0\n",
        },
        records_a_failed_study_run=True,
    ),
    "trec docid 2^31": Case(
        ["trec", "import", "{tmp}/run.trec", "--query-set", "squad_questions_train"],
        ("{tmp}/run.trec", "row 2", "field 'docid'", f"{BIG} is out of range"),
        files={"run.trec": f"0/question Q0 1 1 2.5 bm25\n0/question Q0 {BIG} 2 1.5 bm25\n"},
    ),
    "trec rank 2^31": Case(
        ["trec", "import", "{tmp}/run.trec", "--query-set", "squad_questions_train"],
        ("{tmp}/run.trec", "row 1", "field 'rank'", f"{BIG} is out of range"),
        files={"run.trec": f"0/question Q0 1 {BIG} 2.5 bm25\n"},
    ),
    "trec score NaN": Case(
        ["trec", "import", "{tmp}/run.trec", "--query-set", "squad_questions_train"],
        ("{tmp}/run.trec", "row 1", "field 'score'", "not a finite number"),
        files={"run.trec": "0/question Q0 1 1 NaN bm25\n"},
    ),
    "study seed 1.9": Case(
        ["run", "{tmp}/study.toml"],
        ("{tmp}/study.toml", "seed must be an integer >= 0, got 1.9"),
        files={"study.toml": study_text("seed = 1.9\n")},
    ),
    "study seed true": Case(
        ["run", "{tmp}/study.toml"],
        ("{tmp}/study.toml", "seed must be an integer >= 0, got True"),
        files={"study.toml": study_text("seed = true\n")},
    ),
    "vectors: text file named .bin": Case(
        ["ingest", "vectors", "{tmp}/v.bin", "--name", "v"],
        ("{tmp}/v.bin", "field 'format'", "holds text"),
        files={"v.bin": TEXT_VECTORS},
    ),
    "vectors: binary file read as text": Case(
        ["ingest", "vectors", "{tmp}/v.txt", "--name", "v"],
        ("{tmp}/v.txt", "field 'format'", "holds binary data"),
        files={"v.txt": b"2 3\nfood \x00\x00\x80?\x00\x00\x00@\x00\x00@@\n"},
    ),
    "vectors: header announces 10^11 words": Case(
        ["ingest", "vectors", "{tmp}/v.bin", "--name", "v"],
        ("{tmp}/v.bin", "field 'count'", "100,000,000,000 vectors"),
        files={"v.bin": b"100000000000 300\nfood \x00\x00\x80?\n"},
    ),
    "vectors: zero dimensions": Case(
        ["ingest", "vectors", "{tmp}/v.txt", "--name", "v"],
        ("{tmp}/v.txt", "field 'dim'", "0 dimensions"),
        files={"v.txt": "2 0\nfood\ngarden\n"},
    ),
    "study unknown key": Case(
        ["run", "{tmp}/study.toml"],
        ("{tmp}/study.toml", "[study] unknown key 'jbos' (did you mean 'jobs'?)"),
        files={"study.toml": study_text('seed = 1\njbos = ["retrieval"]\n')},
    ),
    "study unknown table": Case(
        ["run", "{tmp}/study.toml"],
        ("{tmp}/study.toml", "unknown table [retreival] (did you mean [retrieval]?)"),
        files={"study.toml": study_text("seed = 1\n[retreival]\ndepth = 5\n")},
    ),
    "study nested unknown key": Case(
        ["run", "{tmp}/study.toml"],
        ("{tmp}/study.toml", "[retrieval.hybrid] unknown key 'weigths'"),
        files={"study.toml": study_text("seed = 1\n[retrieval.hybrid]\nweigths = [0.5, 0.5]\n")},
    ),
    "study ingest key of the wrong type": Case(
        ["run", "{tmp}/study.toml"],
        (
            "{tmp}/study.toml",
            '[[ingest]] #1 (source = "pairs")',
            "cleanup must be true, false, 'light', 'seed_compatible' or 'none'",
        ),
        files={
            "study.toml": study_text('seed = 1\n[[ingest]]\nsource = "pairs"\npath = "p.csv"\ncleanup = "yes"\n'),
            "p.csv": "id,squad_idx,sae_query,aave_query\n",  # present: the one mistake is the cleanup value
        },
    ),
}
