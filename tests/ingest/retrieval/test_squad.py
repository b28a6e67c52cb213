import json

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from biaswh.ingest.retrieval.squad import load_squad
from biaswh.warehouse.errors import InputError
from tests.conftest import DEMO_DATA
from tests.fingerprints import raw_fingerprint

SQUAD_JSON = DEMO_DATA / "squad_demo.json"


def _hf_records():
    """The demo file flattened by hand into Hugging Face records, in HF order."""
    document = json.loads(SQUAD_JSON.read_text(encoding="utf-8"))
    return [
        {
            "id": qa["id"],
            "title": article["title"],
            "context": paragraph["context"],
            "question": qa["question"],
            "answers": {
                "text": [a["text"] for a in qa["answers"]],
                "answer_start": [a["answer_start"] for a in qa["answers"]],
            },
        }
        for article in document["data"]
        for paragraph in article["paragraphs"]
        for qa in paragraph["qas"]
    ]


def _stored(con):
    return con.execute(
        "select row_idx, squad_id, title, context, question, answer_texts, answer_starts"
        " from raw.squad_questions order by row_idx"
    ).fetchall()


def test_official_json_keeps_hugging_face_order(con):
    result = load_squad(con, str(SQUAD_JSON), split="train")
    assert result.status == "loaded" and result.rows == 64
    rows = _stored(con)
    expected = _hf_records()
    assert [r[4] for r in rows] == [e["question"] for e in expected]
    assert rows[5][5] == expected[5]["answers"]["text"]
    assert rows[5][6] == expected[5]["answers"]["answer_start"]


@pytest.mark.parametrize("fmt", ["jsonl", "parquet"])
def test_jsonl_and_parquet_give_the_same_rows_as_json(con, tmp_path, fmt):
    records = _hf_records()
    path = tmp_path / f"squad.{fmt}"
    if fmt == "jsonl":
        path.write_text("\n".join(json.dumps(r) for r in records), encoding="utf-8")
    else:
        pq.write_table(pa.Table.from_pylist(records), path)
    load_squad(con, str(path), split="other")
    from_file = con.execute(
        "select row_idx, question, answer_texts from raw.squad_questions where split = 'other' order by row_idx"
    ).fetchall()
    assert from_file == [(i, r["question"], r["answers"]["text"]) for i, r in enumerate(records)]


def test_identical_reingest_is_a_noop_that_says_so(con):
    first = load_squad(con, str(SQUAD_JSON))
    before = raw_fingerprint(con)
    second = load_squad(con, str(SQUAD_JSON))
    assert second.status == "unchanged" and "nothing written" in second.message
    assert second.run_id == first.run_id
    assert raw_fingerprint(con) == before


def test_changed_file_becomes_a_new_version(con, tmp_path):
    load_squad(con, str(SQUAD_JSON))
    document = json.loads(SQUAD_JSON.read_text(encoding="utf-8"))
    document["data"] = document["data"][:2]
    changed = tmp_path / "squad_demo.json"
    changed.write_text(json.dumps(document), encoding="utf-8")
    result = load_squad(con, str(changed))
    assert (result.status, result.version, result.rows) == ("loaded", 2, 6)
    assert con.execute("select version, n_rows from raw.source_versions order by version").fetchall() == [
        (1, 64),
        (2, 6),
    ]


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (
            '{"data": [{"title": "t", "paragraphs": [{"context": "c", "qas": [{"id": "1", "answers": []}]}]}]}',
            "row data[0].paragraphs[0].qas[0], field 'question'",
        ),
        ('{"data": [{"title": "t", "paragraphs": [{"qas": []}]}]}', "row data[0].paragraphs[0], field 'context'"),
        ('{"data": [', "malformed JSON at line 1"),
        (
            '[{"context": "c", "question": "q", "answers": {"text": ["a"], "answer_start": []}}]',
            "row 1, field 'answers'",
        ),
    ],
)
def test_bad_squad_files_are_refused_with_location_and_leave_no_trace(con, tmp_path, content, expected):
    path = tmp_path / "bad.json"
    path.write_text(content, encoding="utf-8")
    before = raw_fingerprint(con)
    with pytest.raises(InputError) as error:
        load_squad(con, str(path))
    assert str(path) in str(error.value) and expected in str(error.value)
    assert raw_fingerprint(con) == before


def test_wrong_file_type_and_corrupt_parquet_are_refused(con, tmp_path):
    text_file = tmp_path / "squad.txt"
    text_file.write_text("hello", encoding="utf-8")
    with pytest.raises(InputError, match="unsupported file type '.txt'"):
        load_squad(con, str(text_file))
    fake = tmp_path / "squad.parquet"
    fake.write_bytes(b"not parquet at all")
    with pytest.raises(InputError, match="not a readable Parquet file"):
        load_squad(con, str(fake))
    assert con.execute("select count(*) from raw.runs").fetchone()[0] == 0
