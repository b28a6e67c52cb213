"""The WEAT card's word-set note: the strongest test's d_word_sets interval, of that run, embedding and test only."""

from __future__ import annotations

import duckdb
import pytest

from biaswh.dashboards.weat.card import _word_set_note

TOP = {"embedding": "w2v", "test": "weat6"}
WANTED = ("r1", "w2v", "weat6", "d_word_sets", "computed", 1.7401, 1.9234)
# each decoy differs from the wanted row in one field, and carries an interval of its own
DECOYS = [
    ("r0", "w2v", "weat6", "d_word_sets", "computed", 0.11, 0.22),
    ("r1", "glove", "weat6", "d_word_sets", "computed", 0.33, 0.44),
    ("r1", "w2v", "weat7", "d_word_sets", "computed", 0.55, 0.66),
    ("r1", "w2v", "weat6", "d_attributes", "computed", 0.77, 0.88),
    ("r1", "w2v", "weat6", "d_word_sets", "insufficient coverage", 0.99, 1.01),
]


@pytest.fixture
def mart():
    con = duckdb.connect()
    con.execute("create schema marts")
    con.execute(
        "create table marts.fct_weat_metrics (run_id varchar, embedding varchar, test varchar, metric varchar,"
        " status varchar, ci_low double, ci_high double)"
    )
    yield con
    con.close()


def test_the_note_reads_the_strongest_tests_word_set_interval_and_no_other(mart):
    mart.executemany("insert into marts.fct_weat_metrics values (?, ?, ?, ?, ?, ?, ?)", [*DECOYS, WANTED])
    assert _word_set_note(mart, "r1", TOP) == " Resampling the words of all four sets moves d within [1.74, 1.92]."


def test_without_that_row_there_is_no_note(mart):
    mart.executemany("insert into marts.fct_weat_metrics values (?, ?, ?, ?, ?, ?, ?)", DECOYS)
    assert _word_set_note(mart, "r1", TOP) == ""


def test_a_warehouse_without_the_metrics_mart_has_no_note():
    with duckdb.connect() as con:
        assert _word_set_note(con, "r1", TOP) == ""
