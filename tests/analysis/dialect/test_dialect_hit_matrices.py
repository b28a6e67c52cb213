"""The paired tests' hit matrices: the hits of marts.fct_dialect_paired_hits, one row per pair and one column per k."""

from __future__ import annotations

import duckdb
import numpy as np
import pytest

from biaswh.analysis.dialect.paired_statistics import _hit_matrices

# Pairs out of pair_id order, a miss (null rank) on each side, a gold at the last k.
PAIRS = [
    ("p2", 3, 1, None),
    ("p1", 3, 2, 3),
    ("p3", 3, None, 1),
]
# The view's definition over the k grid 1..depth (models/marts/dialect/fct_dialect_paired_hits.sql).
VIEW = """
    select run_id, retriever, pair_set, pair_id, grid.k, variant_a, variant_b,
        coalesce(rank_of_gold_a <= grid.k, false) as is_hit_a, coalesce(rank_of_gold_b <= grid.k, false) as is_hit_b
    from marts.fct_dialect_paired_ranks
    cross join lateral (select unnest(range(1, depth + 1)) as k) as grid
"""


def _warehouse(pairs) -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    con.execute("create schema marts")
    con.execute(
        "create table marts.fct_dialect_paired_ranks (run_id varchar, retriever varchar, pair_set varchar,"
        " pair_id varchar, depth integer, variant_a varchar, variant_b varchar, rank_of_gold_a integer,"
        " rank_of_gold_b integer)"
    )
    con.executemany(
        "insert into marts.fct_dialect_paired_ranks values ('r', 'bm25', 's', ?, ?, 'sae', 'aae', ?, ?)", pairs
    )
    con.execute(f"create view marts.fct_dialect_paired_hits as {VIEW}")
    return con


def test_hit_matrices_hold_the_paired_hits_in_pair_id_order():
    con = _warehouse(PAIRS)
    hits_a, hits_b = _hit_matrices(con, "r", "bm25", "s", "sae", "aae")
    assert hits_a.dtype == bool and hits_a.shape == (3, 3)
    assert hits_a.tolist() == [[False, True, True], [True, True, True], [False, False, False]]
    assert hits_b.tolist() == [[False, False, True], [False, False, False], [True, True, True]]
    # the rows the view has, in the order the tests read them before (pair_id, then k)
    view = con.execute("select is_hit_a, is_hit_b from marts.fct_dialect_paired_hits order by pair_id, k").fetchnumpy()
    assert np.array_equal(hits_a.ravel(), view["is_hit_a"]) and np.array_equal(hits_b.ravel(), view["is_hit_b"])


def test_pairs_retrieved_to_different_depths_are_refused():
    con = _warehouse([*PAIRS, ("p4", 5, 1, 1)])
    with pytest.raises(ValueError, match="different depths"):
        _hit_matrices(con, "r", "bm25", "s", "sae", "aae")
