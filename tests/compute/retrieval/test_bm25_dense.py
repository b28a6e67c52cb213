"""The fused dense-row passes of BM25's numba kernel against one pass per token."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("numba", reason="the kernel is the bench extra's (make test installs it)")

from biaswh.compute.retrieval.bm25_dense import add_dense_run, add_dense_run_at  # noqa: E402


@pytest.mark.parametrize("run_length", range(1, 10))
@pytest.mark.parametrize("first", [True, False])
def test_a_run_of_dense_rows_adds_as_one_pass_per_token_in_query_order(run_length, first):
    rng = np.random.default_rng(run_length)
    n_docs, lo, hi = 50, 7, 41
    codes = rng.integers(0, 5, size=(6, n_docs)).astype(np.uint16)
    values = rng.random((6, 5)) * 10.0 ** rng.integers(-3, 4, size=(6, 1))
    values[:, 0] = 0.0  # code 0: the term is absent
    slots = rng.integers(0, 6, size=run_length)
    start = rng.random(hi - lo) * 3.0
    expected = np.zeros(hi - lo) if first else start.copy()
    for slot in slots:  # one pass per token, left to right
        expected = expected + values[slot][codes[slot, lo:hi]]
    part = np.full(64, np.nan)  # a first run reads nothing it is given
    if not first:
        part[: hi - lo] = start
    add_dense_run(part, lo, hi, codes, values, slots, first)
    assert part[: hi - lo].tobytes() == expected.tobytes()
    assert np.isnan(part[hi - lo :]).all()


@pytest.mark.parametrize("run_length", range(1, 8))
def test_a_run_of_dense_rows_adds_at_the_candidates_only_as_one_pass_per_token(run_length):
    rng = np.random.default_rng(run_length)
    n_docs, lo = 50, 20
    codes = rng.integers(0, 5, size=(6, n_docs)).astype(np.uint16)
    values = rng.random((6, 5)) * 10.0 ** rng.integers(-3, 4, size=(6, 1))
    slots = rng.integers(0, 6, size=run_length)
    docs = np.sort(rng.choice(np.arange(lo, n_docs), size=12, replace=False))
    part = rng.random(n_docs - lo)
    expected = part.copy()
    for slot in slots:
        expected[docs - lo] = expected[docs - lo] + values[slot][codes[slot, docs]]
    add_dense_run_at(part, lo, docs, codes, values, slots)
    assert part.tobytes() == expected.tobytes()
