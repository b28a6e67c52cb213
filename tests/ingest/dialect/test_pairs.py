import json

import pytest

from biaswh.ingest.dialect.pairs import load_pairs
from biaswh.ingest.retrieval.squad import load_squad
from biaswh.warehouse.errors import InputError, UserError
from tests.conftest import DEMO_DATA
from tests.fingerprints import raw_fingerprint

PAIRS_CSV = DEMO_DATA / "dialect_pairs_demo.csv"


@pytest.fixture
def squad_loaded(con):
    load_squad(con, str(DEMO_DATA / "squad_demo.json"))
    return con


def _write(tmp_path, name: str, content) -> str:
    path = tmp_path / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content if isinstance(content, str) else json.dumps(content), encoding="utf-8")
    return str(path)


def test_pairs_are_stored_long_with_raw_and_cleaned_text(squad_loaded):
    result = load_pairs(squad_loaded, PAIRS_CSV)
    assert result.rows == 84
    row = squad_loaded.execute(
        "select squad_idx, query_text_raw, query_text, cleanup, attributes->>'conversion_method'"
        " from raw.query_pair_variants where pair_id = '4' and variant = 'aae'"
    ).fetchone()
    assert row[0] == 4
    assert row[1] == "Who be teachin' classes on usin' computers?"
    assert row[2] == "Who be teaching classes on using computers?"
    assert row[3].startswith("light-v1") and row[4] == "handwritten_demo"


def test_variant_columns_are_configurable_and_cleanup_optional(squad_loaded, tmp_path):
    path = _write(
        tmp_path,
        "three.jsonl",
        "\n".join(
            json.dumps(r)
            for r in [
                {"qid": "a", "row": 0, "formal": "What is it?", "casual": "Whatcha sayin'?", "third": "Say what?"},
                {"qid": "b", "row": 1, "formal": "Who?", "casual": "Who dat?", "third": "Who is that?"},
            ]
        ),
    )
    load_pairs(
        squad_loaded,
        path,
        variants={"formal": "formal", "casual": "casual", "third": "third"},
        id_column="qid",
        squad_idx_column="row",
        cleanup=False,
    )
    rows = squad_loaded.execute(
        "select pair_id, variant, query_text, cleanup from raw.query_pair_variants order by pair_id, variant"
    ).fetchall()
    assert len(rows) == 6
    assert ("a", "casual", "Whatcha sayin'?", "none") in rows


def test_identical_reingest_is_a_noop_but_new_options_make_a_new_version(squad_loaded):
    load_pairs(squad_loaded, PAIRS_CSV)
    before = raw_fingerprint(squad_loaded)
    assert load_pairs(squad_loaded, PAIRS_CSV).status == "unchanged"
    assert raw_fingerprint(squad_loaded) == before
    assert load_pairs(squad_loaded, PAIRS_CSV, cleanup=False).version == 2


def test_pairs_need_squad_loaded_first(con):
    with pytest.raises(UserError, match="SQuAD split 'train' is not in the warehouse"):
        load_pairs(con, PAIRS_CSV)


BAD_INPUTS = [
    (
        "malformed.json",
        '[{"id": 1, "squad_idx": 0, "sae_query": "a", "aave_query": "b"},',
        None,
        "malformed JSON at line 1",
    ),
    (
        "missing_idx.json",
        [
            {"id": 1, "squad_idx": 0, "sae_query": "a", "aave_query": "b"},
            {"id": 2, "sae_query": "a", "aave_query": "b"},
        ],
        "row 2, field 'squad_idx'",
        "missing squad_idx",
    ),
    (
        "out_of_range.json",
        [{"id": 1, "squad_idx": 64, "sae_query": "a", "aave_query": "b"}],
        "row 1, field 'squad_idx'",
        "out of range",
    ),
    (
        "not_integer.csv",
        "id,squad_idx,sae_query,aave_query\n1,3.5,a,b\n",
        "row 1, field 'squad_idx'",
        "must be an integer",
    ),
    (
        "duplicate.json",
        [
            {"id": 7, "squad_idx": 0, "sae_query": "a", "aave_query": "b"},
            {"id": 7, "squad_idx": 1, "sae_query": "c", "aave_query": "d"},
        ],
        "row 2, field 'id'",
        "duplicate pair id '7' (first seen in row 1)",
    ),
    (
        "empty_text.csv",
        "id,squad_idx,sae_query,aave_query\n1,0,a,b\n2,1,c,   \n",
        "row 2, field 'aave_query'",
        "empty query text for variant 'aae'",
    ),
    ("latin1.csv", "id,squad_idx,sae_query,aave_query\n1,0,caf\u00e9,b\n".encode("latin-1"), None, "not valid UTF-8"),
    ("pairs.xlsx", "whatever", None, "unsupported file type '.xlsx'"),
    (
        "no_variant.json",
        [{"id": 1, "squad_idx": 0, "sae_query": "a"}],
        "field 'aave_query'",
        "variant column not found",
    ),
    (
        "malformed.jsonl",
        '{"id": 1, "squad_idx": 0, "sae_query": "a", "aave_query": "b"}\n{"id": 2,',
        "row 2",
        "malformed JSON on line 2",
    ),
]


@pytest.mark.parametrize(("name", "content", "location", "reason"), BAD_INPUTS, ids=[b[0] for b in BAD_INPUTS])
def test_bad_pair_files_are_refused_cleanly_and_change_nothing(squad_loaded, tmp_path, name, content, location, reason):
    path = _write(tmp_path, name, content)
    before = raw_fingerprint(squad_loaded)
    with pytest.raises(InputError) as error:
        load_pairs(squad_loaded, path)
    message = str(error.value)
    assert message.startswith(path) and reason in message
    if location:
        assert location in message
    assert raw_fingerprint(squad_loaded) == before


def test_a_failure_while_writing_rolls_back_the_whole_ingest(squad_loaded, monkeypatch):
    import biaswh.ingest.common.versions as versions

    before = raw_fingerprint(squad_loaded)

    def explode(*args, **kwargs):
        raise RuntimeError("disk full")

    monkeypatch.setattr(versions, "datetime", type("Broken", (), {"now": staticmethod(explode)}))
    with pytest.raises(RuntimeError, match="disk full"):
        load_pairs(squad_loaded, PAIRS_CSV)
    assert raw_fingerprint(squad_loaded) == before
