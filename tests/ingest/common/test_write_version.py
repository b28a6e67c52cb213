"""write_version: one helper writes every table-shaped ingest, with each row's provenance."""

from __future__ import annotations

import pyarrow as pa
import pytest

from ingest.common.versions import SourceFile, latest_version, write_version


def _rows(*topics: str) -> pa.Table:
    return pa.table(
        {
            "source_row": pa.array(range(1, len(topics) + 1), pa.int32()),
            "feature": list(topics),
            "feature_type": ["categorical"] * len(topics),
        }
    )


def _write(con, tmp_path, rows: pa.Table, content: str):
    path = tmp_path / "features.csv"
    path.write_text(content, encoding="utf-8")
    source = SourceFile("recsys_feature_table", "demo_posts", path, content)
    return write_version(con, source, rows, raw_table="recsys_feature_types", constants={"post_set": "demo_posts"})


def test_rows_carry_the_run_sha256_version_and_constants(con, tmp_path):
    first = _write(con, tmp_path, _rows("topic", "tone"), "sha-one")
    second = _write(con, tmp_path, _rows("topic"), "sha-two")
    assert (first.status, first.version, first.rows, second.version) == ("loaded", 1, 2, 2)
    stored = con.execute(
        "select run_id, source_sha256, source_version, post_set, source_row, feature from raw.recsys_feature_types"
        " order by source_version, source_row"
    ).fetchall()
    assert stored == [
        (first.run_id, "sha-one", 1, "demo_posts", 1, "topic"),
        (first.run_id, "sha-one", 1, "demo_posts", 2, "tone"),
        (second.run_id, "sha-two", 2, "demo_posts", 1, "topic"),
    ]
    assert latest_version(con, "recsys_feature_table", "demo_posts") == 2


def test_the_same_source_again_writes_nothing(con, tmp_path):
    _write(con, tmp_path, _rows("topic"), "sha-one")
    again = _write(con, tmp_path, _rows("topic"), "sha-one")
    assert (again.status, again.version) == ("unchanged", 1)
    assert con.execute("select count(*) from raw.recsys_feature_types").fetchone()[0] == 1


def test_a_raw_column_left_out_is_refused_and_nothing_is_written(con, tmp_path):
    with pytest.raises(ValueError, match="feature_type"):
        _write(con, tmp_path, _rows("topic").drop_columns(["feature_type"]), "sha-one")
    assert con.execute("select count(*) from raw.recsys_feature_types").fetchone()[0] == 0
    assert latest_version(con, "recsys_feature_table", "demo_posts") is None
