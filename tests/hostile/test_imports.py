"""Hostile imports: each input a careless or hostile user might feed an import, one row per case.

Every case runs ``biaswh`` in-process against its own copy of one small warehouse (the demo
SQuAD ``demo_train``, the demo pair set over it, and the BEIR demo corpus with its queries;
raw rows only, no dbt build: imports are checked against the raw rows of the latest versions)
and asserts exit code 2, one stderr line naming the file, row and field, no traceback, and
every raw table unchanged (so no run row either).
"""

from __future__ import annotations

import io
import json
import shutil
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from biaswh.ingest.dialect.pairs import load_pairs
from biaswh.ingest.retrieval.corpus import load_corpus, load_corpus_queries
from biaswh.ingest.retrieval.squad import load_squad
from biaswh.warehouse.database.connection import connect
from biaswh.warehouse.settings.home import HOME_VARIABLE
from tests.conftest import DEMO_DATA, assert_refused, run_main, seed_warehouse
from tests.fingerprints import warehouse_raw_fingerprint

ZERO_WIDTH = "\u200b\u200b"
TREC = ["trec", "import", "{tmp}/run.trec", "--query-set"]
CORPUS_QUERIES = ["ingest", "corpus-queries", "{tmp}/topics.txt", "--corpus", "beir_demo", "--format", "trec_topics"]


def _parquet(table: pa.Table) -> bytes:
    buffer = io.BytesIO()
    pq.write_table(table, buffer)
    return buffer.getvalue()


def _squad(question: str = "What grows?", answer_start: int = 10) -> str:
    """A one-question official SQuAD JSON."""
    qa = {"id": "q", "question": question, "answers": [{"text": "gardens", "answer_start": answer_start}]}
    paragraph = {"context": "Community gardens grow food.", "qas": [qa]}
    return json.dumps({"data": [{"title": "t", "paragraphs": [paragraph]}]})


WEAT_EXCLUDED_OBJECT = """tests:
  t:
    target_x: {label: x, words: [x1, x2]}
    target_y: {label: y, words: [y1, y2]}
    attribute_a: {label: a, words: [a1, a2]}
    attribute_b: {label: b, words: [b1, b2], excluded: [{x: 1}]}
"""
WEAT_LIST_TITLE = WEAT_EXCLUDED_OBJECT.replace(", excluded: [{x: 1}]", "").replace("  t:\n", "  t:\n    title: [a]\n")


@dataclass(frozen=True)
class Case:
    """``argv`` and the expected fragments may name ``{tmp}``, the folder holding ``files``."""

    argv: list[str]
    names: tuple[str, ...]  # what the one error line must contain: file, row, field, reason
    files: dict[str, str | bytes] = field(default_factory=dict)


CASES = {
    # TREC runs, checked against the query set's queries, variants and corpus like qrels are
    "trec: unknown query set": Case(
        [*TREC, "no_such_set"],
        ("{tmp}/run.trec", "pair set 'no_such_set'", "not ingested"),
        {"run.trec": "0/sae Q0 1 1 2.5 bm25\n"},
    ),
    "trec: unknown qid": Case(
        [*TREC, "dialect_pairs_demo"],
        ("{tmp}/run.trec", "row 2", "field 'qid'", "query '999' is not in query set pairs:dialect_pairs_demo"),
        {"run.trec": "0/sae Q0 1 1 2.5 bm25\n999/sae Q0 1 1 2.5 bm25\n"},
    ),
    "trec: docid 99999": Case(
        [*TREC, "dialect_pairs_demo"],
        ("{tmp}/run.trec", "row 1", "field 'docid'", "document 99999 is not in the corpus", "28 documents"),
        {"run.trec": "0/sae Q0 99999 1 2.5 bm25\n"},
    ),
    "trec: docid -1": Case(
        [*TREC, "squad_questions_demo_train"],
        ("{tmp}/run.trec", "row 3", "field 'docid'", "document -1 is not in the corpus"),
        {"run.trec": "0 Q0 1 1 2.5 bm25\n\n0 Q0 -1 2 1.5 bm25\n"},  # rows are file lines, blank ones too
    ),
    "trec: qid without /variant where the query has two": Case(
        [*TREC, "dialect_pairs_demo"],
        ("{tmp}/run.trec", "row 1", "field 'qid'", "names no variant", "aae, sae"),
        {"run.trec": "0 Q0 1 1 2.5 bm25\n"},
    ),
    "trec: unknown variant": Case(
        [*TREC, "dialect_pairs_demo"],
        ("{tmp}/run.trec", "row 1", "field 'qid'", "variant 'xyz' is not a variant of query '0'"),
        {"run.trec": "0/xyz Q0 1 1 2.5 bm25\n"},
    ),
    "trec: docid beyond a BEIR corpus": Case(
        [*TREC, "queries_beir_demo"],
        ("{tmp}/run.trec", "row 1", "field 'docid'", "document 12 is not in the corpus", "'beir_demo'"),
        {"run.trec": "q1 Q0 12 1 2.5 bm25\n"},
    ),
    "trec: --corpus-split not the query set's corpus": Case(
        [*TREC, "dialect_pairs_demo", "--corpus-split", "train"],
        ("{tmp}/run.trec", "field 'corpus_split'", "is not the corpus of query set", "'demo_train'"),
        {"run.trec": "0/sae Q0 1 1 2.5 bm25\n"},
    ),
    # corpora: values that are not text, malformed files, invisible text
    "corpus: JSON NaN _id": Case(
        ["ingest", "corpus", "{tmp}/beir", "--name", "hostile"],
        ("{tmp}/beir/corpus.jsonl", "row 2", "field '_id'", "NaN or infinity"),
        {"beir/corpus.jsonl": '{"_id": "d1", "text": "a"}\n{"_id": NaN, "text": "b"}\n'},
    ),
    "corpus: an object as title": Case(
        ["ingest", "corpus", "{tmp}/docs.jsonl", "--name", "hostile"],
        ("{tmp}/docs.jsonl", "row 1", "field 'title'", "must be text or a number, got dict"),
        {"docs.jsonl": '{"_id": "d1", "title": {"en": "x"}, "text": "a"}\n'},
    ),
    "corpus: Parquet binary text column": Case(
        ["ingest", "corpus", "{tmp}/docs.parquet", "--name", "hostile"],
        ("{tmp}/docs.parquet", "row 1", "field 'text'", "binary data"),
        {"docs.parquet": _parquet(pa.table({"id": ["d1"], "text": pa.array([b"abc"], pa.binary())}))},
    ),
    "corpus: CSV with an unterminated quote": Case(
        ["ingest", "corpus", "{tmp}/docs.csv", "--name", "hostile"],
        ("{tmp}/docs.csv", "row 2", "field 'text'", "line 3", "unterminated quote"),
        {"docs.csv": 'id,text\n1,fine\n2,"swallows\n3,the rest\n4,of the file\n'},
    ),
    "corpus: MS MARCO TSV with an extra column": Case(
        ["ingest", "corpus", "{tmp}/collection.tsv", "--name", "hostile"],
        ("{tmp}/collection.tsv", "row 2", "field 'line'", "found 3 columns"),
        {"collection.tsv": "0\tfirst passage\n1\tsecond passage\t0.93\n"},
    ),
    "corpus: zero-width-only document": Case(
        ["ingest", "corpus", "{tmp}/docs.jsonl", "--name", "hostile"],
        ("{tmp}/docs.jsonl", "row 2", "field 'text'", "empty text"),
        {"docs.jsonl": f'{{"_id": "d1", "text": "a"}}\n{{"_id": "d2", "text": "{ZERO_WIDTH}"}}\n'},
    ),
    "queries: zero-width-only query": Case(
        ["ingest", "corpus-queries", "{tmp}/queries.jsonl", "--corpus", "beir_demo"],
        ("{tmp}/queries.jsonl", "row 1", "field 'text'", "empty text"),
        {"queries.jsonl": f'{{"_id": "q1", "text": "{ZERO_WIDTH}"}}\n'},
    ),
    "queries: TREC <top> left open before the next": Case(
        CORPUS_QUERIES,
        ("{tmp}/topics.txt", "row 4", "field 'top'", "<top> on line 1 is not closed"),
        {"topics.txt": "<top>\n<num> Number: 1\n<title> first\n<top>\n<num> Number: 2\n<title> second\n</top>\n"},
    ),
    "queries: TREC <top> left open at the end": Case(
        CORPUS_QUERIES,
        ("{tmp}/topics.txt", "row 5", "field 'top'", "no </top> before the end of the file"),
        {"topics.txt": "<top>\n<num> Number: 1\n<title> first\n</top>\n<top>\n<num> Number: 2\n<title> second\n"},
    ),
    # SQuAD, pairs, qrels, WEAT
    "squad: answer_start -5": Case(
        ["ingest", "squad", "{tmp}/squad.json", "--split", "x"],
        ("{tmp}/squad.json", "data[0].paragraphs[0].qas[0]", "field 'answers.answer_start'", "-5 is below 0"),
        {"squad.json": _squad(answer_start=-5)},
    ),
    "squad: answer past the end of the context": Case(
        ["ingest", "squad", "{tmp}/squad.json", "--split", "x"],
        ("{tmp}/squad.json", "field 'answers.answer_start'", "runs past the end of the context (28 characters)"),
        {"squad.json": _squad(answer_start=25)},
    ),
    "squad: an object as title (JSONL)": Case(
        ["ingest", "squad", "{tmp}/squad.jsonl", "--split", "x"],
        ("{tmp}/squad.jsonl", "row 1", "field 'title'", "must be text, got dict"),
        {"squad.jsonl": '{"title": {"en": "t"}, "context": "c", "question": "q?"}\n'},
    ),
    "squad: an object as id (JSONL)": Case(
        ["ingest", "squad", "{tmp}/squad.jsonl", "--split", "x"],
        ("{tmp}/squad.jsonl", "row 1", "field 'id'", "must be text or an integer, got dict"),
        {"squad.jsonl": '{"id": {"n": 1}, "context": "c", "question": "q?"}\n'},
    ),
    "squad: zero-width-only question": Case(
        ["ingest", "squad", "{tmp}/squad.json", "--split", "x"],
        ("{tmp}/squad.json", "data[0].paragraphs[0].qas[0]", "field 'question'", "empty text"),
        {"squad.json": _squad(question=ZERO_WIDTH)},
    ),
    "pairs: zero-width-only query": Case(
        ["ingest", "pairs", "{tmp}/pairs.csv", "--squad-split", "demo_train", "--name", "hostile"],
        ("{tmp}/pairs.csv", "row 1", "field 'aave_query'", "empty query text"),
        {"pairs.csv": f"id,squad_idx,sae_query,aave_query\n0,0,Who grows food?,{ZERO_WIDTH}\n"},
    ),
    "qrels: CSV with an unterminated quote": Case(
        ["ingest", "qrels", "{tmp}/qrels.csv", "--query-set", "queries:beir_demo"],
        ("{tmp}/qrels.csv", "row 2", "field 'doc_id'", "unterminated quote"),
        {"qrels.csv": 'query_id,doc_id\nq1,kb-001\nq2,"kb-002\nq3,kb-003\n'},
    ),
    "weat: excluded holds an object": Case(
        ["ingest", "weat-tests", "{tmp}/tests.yaml"],
        ("{tmp}/tests.yaml", "field 'tests.t.attribute_b.excluded'", "must be a list of words"),
        {"tests.yaml": WEAT_EXCLUDED_OBJECT},
    ),
    "weat: a list as title": Case(
        ["ingest", "weat-tests", "{tmp}/tests.yaml"],
        ("{tmp}/tests.yaml", "field 'tests.t.title'", "must be text, got list"),
        {"tests.yaml": WEAT_LIST_TITLE},
    ),
}


@pytest.fixture(scope="module")
def seeded_warehouse(tmp_path_factory) -> Path:
    """A warehouse file holding what the imports are checked against, built once per module."""

    def load(con) -> None:
        load_squad(con, str(DEMO_DATA / "squad_demo.json"), name="demo_train")
        load_pairs(
            con,
            DEMO_DATA / "dialect_pairs_demo.csv",
            name="dialect_pairs_demo",
            variants={"sae": "sae_query", "aae": "aave_query"},
            squad_split="demo_train",
        )
        load_corpus(con, DEMO_DATA / "beir_demo", name="beir_demo")
        load_corpus_queries(con, DEMO_DATA / "beir_demo", corpus="beir_demo", name="beir_demo")

    return seed_warehouse(tmp_path_factory.mktemp("hostile-imports"), load)


@pytest.fixture
def home(seeded_warehouse, tmp_path, monkeypatch) -> Path:
    """This test's own copy of the seeded warehouse."""
    folder = tmp_path / "warehouse"
    folder.mkdir()
    shutil.copy(seeded_warehouse, folder / "warehouse.duckdb")
    monkeypatch.setenv(HOME_VARIABLE, str(folder))
    return folder


@pytest.mark.parametrize("name", CASES)
def test_a_hostile_import_is_refused_in_one_line_and_changes_nothing(name, home, tmp_path, capsys):
    case = CASES[name]
    folder = tmp_path / "inputs"
    for file_name, content in case.files.items():
        path = folder / file_name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content) if isinstance(content, bytes) else path.write_text(content, encoding="utf-8")
    fill = lambda text: text.format(tmp=folder)  # noqa: E731
    before = warehouse_raw_fingerprint()

    code, _, error = run_main([fill(a) for a in case.argv], capsys)

    assert_refused(code, error, [fill(expected) for expected in case.names])
    assert warehouse_raw_fingerprint() == before


def test_a_checked_trec_run_is_stored_against_its_query_set_and_corpus(home, tmp_path, capsys):
    run = tmp_path / "run.trec"
    run.write_text("0/sae Q0 3 1 2.5 bm25\n0/aae Q0 4 1 1.5 bm25\n", encoding="utf-8")
    bare = tmp_path / "bare.trec"  # another tool's run: bare qids, the questions' one variant
    bare.write_text("5 Q0 27 1 0.5 other\n", encoding="utf-8")

    assert run_main(["trec", "import", str(run), "--query-set", "dialect_pairs_demo"], capsys)[0] == 0
    assert run_main(["trec", "import", str(bare), "--query-set", "squad_questions:demo_train"], capsys)[0] == 0

    con = connect(read_only=True)
    stored = con.execute(
        "select query_set, retriever, query_id, variant, corpus_split, doc_id from raw.retrieval_results"
        " order by query_set, variant"
    ).fetchall()
    con.close()
    assert stored == [
        ("dialect_pairs_demo", "trec:bm25", "0", "aae", "demo_train", 4),
        ("dialect_pairs_demo", "trec:bm25", "0", "sae", "demo_train", 3),
        ("squad_questions_demo_train", "trec:other", "5", "question", "demo_train", 27),
    ]
