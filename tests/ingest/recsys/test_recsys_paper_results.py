"""The paper's published directional-bias and feature-importance files: load, version, refuse bad rows."""

from __future__ import annotations

import csv

import pytest

from biaswh.ingest.recsys.paper_results import (
    DIRECTIONAL_COLUMNS,
    IMPORTANCE_COLUMNS,
    load_recsys_directional_bias,
    load_recsys_feature_importance,
)
from biaswh.warehouse.errors import InputError
from tests.conftest import shared_file
from tests.fingerprints import raw_fingerprint

DIRECTIONAL = [
    ["author_gender", "female", "twitter", "openai", "general", "0.0085", "0.4084", "0.417", "categorical", "", "", ""],
    [
        "avg_word_length",
        "mean_difference",
        "twitter",
        "openai",
        "general",
        "0.0946",
        "",
        "",
        "continuous",
        "4.18",
        "4.28",
        "0.069",
    ],
]
IMPORTANCE = [
    ["author_gender", "twitter", "openai", "general", "0.029", "0.010", "0.82", "10000", "1000", "9000"],
    ["toxicity", "reddit", "gemini", "neutral", "0.1", "0.05", "0.8", "100", "10", "90"],
]


def _write(path, header, rows):
    with open(path, "w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle)
        writer.writerow(header)
        writer.writerows(rows)
    return path


def test_directional_rows_load_with_empty_cells_as_null_and_reload_is_a_no_op(con, tmp_path):
    path = _write(tmp_path / "directional.csv", DIRECTIONAL_COLUMNS, DIRECTIONAL)
    first = load_recsys_directional_bias(con, path, name="paper")
    assert (first.status, first.rows, first.version) == ("loaded", 2, 1)
    stored = con.execute(
        "select feature, category, directional_bias, prop_pool, mean_pool, std_diff, result_set"
        " from raw.recsys_published_directional_bias order by source_row"
    ).fetchall()
    assert stored == [
        ("author_gender", "female", 0.0085, 0.4084, None, None, "paper"),
        ("avg_word_length", "mean_difference", 0.0946, None, 4.18, 0.069, "paper"),
    ]
    before = raw_fingerprint(con)
    assert load_recsys_directional_bias(con, path, name="paper").status == "unchanged"
    assert raw_fingerprint(con) == before


def test_importance_rows_load_and_reload_is_a_no_op(con, tmp_path):
    path = _write(tmp_path / "importance.csv", IMPORTANCE_COLUMNS, IMPORTANCE)
    assert load_recsys_feature_importance(con, path).rows == 2
    before = raw_fingerprint(con)
    assert load_recsys_feature_importance(con, path).status == "unchanged"
    assert raw_fingerprint(con) == before
    assert con.execute("select sum(n_positive) from raw.recsys_published_feature_importance").fetchone() == (1010,)


@pytest.mark.parametrize(
    "index, value, field, message",
    [
        (8, "ordinal", "feature_type", "categorical or continuous"),
        (6, "", "prop_pool", "missing value"),
        (6, "1.2", "prop_pool", "[0, 1]"),
        (5, "nan", "directional_bias", "finite"),
    ],
)
def test_bad_directional_values_name_file_row_and_field(con, tmp_path, index, value, field, message):
    rows = [list(DIRECTIONAL[1]), list(DIRECTIONAL[0])]
    rows[1][index] = value
    path = _write(tmp_path / "bad.csv", DIRECTIONAL_COLUMNS, rows)
    with pytest.raises(InputError, match=message.replace("[", r"\[").replace("]", r"\]")) as error:
        load_recsys_directional_bias(con, path)
    assert (error.value.row, error.value.field, error.value.path) == (2, field, str(path.resolve()))
    assert con.execute("select count(*) from raw.recsys_published_directional_bias").fetchone() == (0,)


@pytest.mark.parametrize(
    "index, value, field, message",
    [
        (6, "1.5", "auroc", "[0, 1]"),
        (8, "2.5", "n_positive", "expected a count"),
        (9, "91", "n_samples", "must equal n_samples"),
    ],
)
def test_bad_importance_values_name_file_row_and_field(con, tmp_path, index, value, field, message):
    rows = [list(IMPORTANCE[0]), list(IMPORTANCE[1])]
    rows[1][index] = value
    path = _write(tmp_path / "bad.csv", IMPORTANCE_COLUMNS, rows)
    with pytest.raises(InputError, match=message.replace("[", r"\[").replace("]", r"\]")) as error:
        load_recsys_feature_importance(con, path)
    assert (error.value.row, error.value.field) == (2, field)


def test_duplicate_conditions_and_missing_columns_are_refused(con, tmp_path):
    path = _write(tmp_path / "dup.csv", IMPORTANCE_COLUMNS, [IMPORTANCE[0], IMPORTANCE[0]])
    with pytest.raises(InputError, match="duplicate row") as error:
        load_recsys_feature_importance(con, path)
    assert error.value.row == 2
    path = _write(tmp_path / "short.csv", IMPORTANCE_COLUMNS[:-1], [IMPORTANCE[0][:-1]])
    with pytest.raises(InputError, match="missing column") as error:
        load_recsys_feature_importance(con, path)
    assert error.value.field == "n_negative"


@pytest.mark.real_data
def test_the_published_files_load_whole(con):
    folder = "recsys-bias/paper-submitted"
    directional = load_recsys_directional_bias(con, shared_file(f"{folder}/directional_bias_data.csv"))
    importance = load_recsys_feature_importance(con, shared_file(f"{folder}/feature_importance_data.csv"))
    assert (directional.rows, importance.rows) == (2070, 702)
