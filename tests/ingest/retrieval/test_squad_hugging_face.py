"""The `hf:` path, with a stand-in for the `datasets` package (the hub is not reachable here)."""

import sys
import types

import pytest

from biaswh.ingest.retrieval.squad import load_squad
from biaswh.warehouse.errors import UserError

RECORDS = [
    {
        "id": "5733be284776f41900661182",
        "title": "University_of_Notre_Dame",
        "context": "Ctx one.",
        "question": "Q one?",
        "answers": {"text": ["one"], "answer_start": [4]},
    },
    {
        "id": "5733be284776f4190066117f",
        "title": "University_of_Notre_Dame",
        "context": "Ctx two.",
        "question": "Q two?",
        "answers": {"text": ["two"], "answer_start": [4]},
    },
]


class _FakeDataset:
    _fingerprint = "abc123"

    def to_list(self):
        return RECORDS


@pytest.fixture
def fake_datasets(monkeypatch):
    calls = []
    module = types.ModuleType("datasets")

    def load_dataset(name, split):
        calls.append((name, split))
        if name != "squad":
            raise ConnectionError("no network")
        return _FakeDataset()

    module.load_dataset = load_dataset
    monkeypatch.setitem(sys.modules, "datasets", module)
    return calls


def test_hugging_face_source_loads_rows_and_records_the_fingerprint(con, fake_datasets):
    result = load_squad(con, "hf:squad", split="validation")
    assert fake_datasets == [("squad", "validation")]
    assert result.rows == 2
    assert con.execute("select squad_id, question from raw.squad_questions order by row_idx").fetchall() == [
        (r["id"], r["question"]) for r in RECORDS
    ]
    assert con.execute("select source_path from raw.run_sources").fetchone()[0] == "hf:squad@abc123"
    assert load_squad(con, "hf:squad", split="validation").status == "unchanged"


def test_hub_failures_are_one_line_user_errors(con, fake_datasets):
    with pytest.raises(UserError, match="could not load 'nope' split 'train' from Hugging Face: no network"):
        load_squad(con, "hf:nope")
    assert con.execute("select count(*) from raw.runs").fetchone()[0] == 0


def test_missing_datasets_package_says_how_to_install_it(con, monkeypatch):
    monkeypatch.setitem(sys.modules, "datasets", None)
    with pytest.raises(UserError, match=r"pip install 'bias-warehouse\[hf\]'"):
        load_squad(con, "hf:squad")
