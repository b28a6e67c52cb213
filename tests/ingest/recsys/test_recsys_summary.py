"""Condition-level results in the original format: load, version, refuse bad rows."""

from __future__ import annotations

import csv

import pytest

from biaswh.ingest.recsys.summary import SUMMARY_COLUMNS, load_recsys_summary
from biaswh.warehouse.errors import InputError
from tests.conftest import shared_file
from tests.fingerprints import raw_fingerprint

ROWS = [
    ["text_length", "twitter", "openai", "general", "0.40", "1e-20", "Cohen's d", "True"],
    ["has_url", "twitter", "openai", "general", "0.0", "1.0", "Cramér's V", "False"],
    ["text_length", "reddit", "gemini", "neutral", "-0.12", "0.2", "Cohen's d", "False"],
]


def _write(path, rows, header=SUMMARY_COLUMNS):
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(header)
        writer.writerows(rows)
    return path


def test_loads_every_row_and_a_second_load_is_a_no_op(con, tmp_path):
    path = _write(tmp_path / "summary.csv", ROWS)
    first = load_recsys_summary(con, path)
    assert (first.status, first.rows, first.version) == ("loaded", 3, 1)
    stored = con.execute(
        "select feature, dataset, bias, p_value, significant, source_row, result_set"
        " from raw.recsys_published_results order by source_row"
    ).fetchall()
    assert stored[0] == ("text_length", "twitter", 0.40, 1e-20, True, 1, "summary")
    assert stored[1][2:5] == (0.0, 1.0, False)
    before = raw_fingerprint(con)
    assert load_recsys_summary(con, path).status == "unchanged"
    assert raw_fingerprint(con) == before
    _write(path, ROWS[:2])
    changed = load_recsys_summary(con, path)
    assert (changed.status, changed.version, changed.rows) == ("loaded", 2, 2)
    sha = con.execute(
        "select distinct source_sha256 from raw.recsys_published_results where source_version = 2"
    ).fetchall()
    assert len(sha) == 1 and len(sha[0][0]) == 64


@pytest.mark.parametrize(
    "row, field, message",
    [
        (
            ["text_length", "twitter", "openai", "general", "big", "0.1", "Cohen's d", "False"],
            "bias",
            "expected a number",
        ),
        (["text_length", "twitter", "openai", "general", "0.1", "1.5", "Cohen's d", "False"], "p_value", "[0, 1]"),
        (
            ["text_length", "twitter", "openai", "general", "0.1", "0.1", "Cohen's d", "maybe"],
            "significant",
            "True or False",
        ),
        (["text_length", "", "openai", "general", "0.1", "0.1", "Cohen's d", "False"], "dataset", "missing value"),
        (["text_length", "twitter", "openai", "general", "nan", "0.1", "Cohen's d", "False"], "bias", "finite"),
        (ROWS[0], "feature", "duplicate condition"),
    ],
)
def test_a_bad_row_names_file_row_and_field_and_writes_nothing(con, tmp_path, row, field, message):
    path = _write(tmp_path / "bad.csv", [ROWS[0], ROWS[1], row])
    before = raw_fingerprint(con)
    with pytest.raises(InputError) as caught:
        load_recsys_summary(con, path)
    assert caught.value.row == 3 and caught.value.field == field
    assert message in str(caught.value) and "bad.csv" in str(caught.value)
    assert raw_fingerprint(con) == before


def test_a_missing_column_is_named(con, tmp_path):
    path = _write(tmp_path / "short.csv", [r[:7] for r in ROWS], header=SUMMARY_COLUMNS[:7])
    with pytest.raises(InputError, match="field 'significant'"):
        load_recsys_summary(con, path)


@pytest.mark.real_data
def test_the_864_published_rows_load(con):
    path = shared_file("recsys-bias/pool_vs_recommended_summary.csv")
    result = load_recsys_summary(con, path)
    assert (result.status, result.rows) == ("loaded", 864)
    counts = con.execute(
        "select count(distinct feature), count(distinct dataset), count(distinct provider),"
        " count(distinct prompt_style), count(*) filter (where significant = (p_value < 0.05))"
        " from raw.recsys_published_results"
    ).fetchone()
    assert counts == (16, 3, 3, 6, 864)
