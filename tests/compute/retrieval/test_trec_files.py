"""TREC run files round-trip and refuse malformed lines."""

from __future__ import annotations

import pytest

from biaswh.compute.retrieval.trec import TrecRow, read_run, write_run
from biaswh.warehouse.errors import InputError


def test_round_trip(tmp_path):
    rows = [
        TrecRow("q1", "17", 1, 12.345678901234567, "bm25"),
        TrecRow("q1", "3", 2, 1 / 3, "bm25"),
        TrecRow("q2", "0", 1, -0.1, "dense"),
    ]
    path = tmp_path / "run.trec"
    assert write_run(path, rows) == 3
    assert path.read_text().splitlines()[0] == "q1 Q0 17 1 12.345678901234567 bm25"
    assert read_run(path) == rows


def test_bad_lines_are_named(tmp_path):
    path = tmp_path / "bad.trec"
    path.write_text("q1 Q0 d1 1 0.5 tag\n\nq1 Q0 d2 two 0.4 tag\n")
    with pytest.raises(InputError, match=r"bad.trec, row 3, field 'rank'"):
        read_run(path)
    path.write_text("q1 Q0 d1 1 0.5\n")
    with pytest.raises(InputError, match="expected 6 fields"):
        read_run(path)
    with pytest.raises(ValueError, match="whitespace"):
        write_run(tmp_path / "x.trec", [TrecRow("q 1", "d", 1, 0.0, "t")])
