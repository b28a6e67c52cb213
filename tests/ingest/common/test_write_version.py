"""write_version: one helper writes every table-shaped ingest, with each row's provenance."""

from __future__ import annotations

import pyarrow as pa
import pytest

from biaswh.ingest.common.versions import CompanionFile, SourceFile, latest_version, write_version


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


def test_rows_made_by_a_function_are_made_for_a_new_version_only_and_may_count_a_column(con, tmp_path):
    made = []

    def rows(run, version):
        made.append((run.run_id, version))
        return _rows("topic", "tone").append_column("n_counted", pa.array([3, 4]))

    path = tmp_path / "features.csv"
    path.write_text("x", encoding="utf-8")
    source = SourceFile("recsys_feature_table", "demo_posts", path, "sha-one")
    con.execute("alter table raw.recsys_feature_types add column n_counted integer")
    constants = {"post_set": "demo_posts"}
    first = write_version(
        con, source, rows, raw_table="recsys_feature_types", constants=constants, counted_by="n_counted"
    )
    again = write_version(
        con, source, rows, raw_table="recsys_feature_types", constants=constants, counted_by="n_counted"
    )
    assert made == [(first.run_id, 1)] and (first.rows, again.status) == (7, "unchanged")
    assert con.execute("select n_rows from raw.source_versions").fetchall() == [(7,)]


def test_a_companion_files_rows_carry_its_own_sha256_and_the_run_records_it(con, tmp_path):
    companion_path = tmp_path / "more.csv"
    companion_path.write_text("y", encoding="utf-8")
    companion = CompanionFile(companion_path, "sha-companion", "recsys_feature_types", _rows("length"))
    path = tmp_path / "features.csv"
    path.write_text("x", encoding="utf-8")
    source = SourceFile("recsys_feature_table", "demo_posts", path, "sha-one")
    result = write_version(
        con,
        source,
        _rows("topic"),
        raw_table="recsys_feature_types",
        constants={"post_set": "demo_posts"},
        companions=(companion,),
    )
    stored = con.execute(
        "select source_sha256, source_version, post_set, feature from raw.recsys_feature_types order by feature"
    ).fetchall()
    assert stored == [("sha-companion", 1, "demo_posts", "length"), ("sha-one", 1, "demo_posts", "topic")]
    assert result.rows == 1
    sources = con.execute("select source_sha256 from raw.run_sources where run_id = ?", [result.run_id]).fetchall()
    assert sorted(sources) == [("sha-companion",), ("sha-one",)]
