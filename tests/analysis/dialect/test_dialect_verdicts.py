"""The dialect study's family: one retriever over the highlighted k, adjusted by the study's policy."""

from __future__ import annotations

import polars as pl
import pytest
from statsmodels.stats.multitest import multipletests

from biaswh.analysis.dialect.paired_statistics import _with_adjustments
from biaswh.stats.multiple_comparisons import VerdictPolicy


def _tests() -> pl.DataFrame:
    return pl.DataFrame(
        {
            "pair_set": ["p"] * 5,
            "variant_a": ["sae"] * 5,
            "variant_b": ["aae"] * 5,
            "retriever": ["bm25", "bm25", "bm25", "dense", "dense"],
            "k": [1, 10, 20, 1, 10],
            "is_highlighted_k": [True, True, False, True, True],
            "p_exact": [0.03, 0.04, 0.0001, 0.01, 0.5],
        }
    )


def test_each_retriever_is_a_family_over_its_highlighted_k():
    judged = _with_adjustments(_tests(), VerdictPolicy("holm", 0.05))
    bm25, dense = multipletests([0.03, 0.04], method="holm")[1], multipletests([0.01, 0.5], method="holm")[1]
    assert judged["p_adjusted"].to_list()[:2] == pytest.approx(list(bm25))
    assert judged["p_adjusted"].to_list()[3:] == pytest.approx(list(dense))
    assert judged["p_holm"].to_list() == judged["p_adjusted"].to_list()
    assert judged["family_size"].to_list() == [2, 2, None, 2, 2]
    assert judged["is_significant"].to_list() == [False, False, False, True, False]
    assert judged["family"][0] == "bm25 over the highlighted k (sae vs aae, pair set p)"
    # a sweep k outside the highlighted ones is in no family, however small its p
    assert judged.row(2, named=True)["p_adjusted"] is None


def test_bh_makes_the_configured_verdict_and_holm_stays_beside_it():
    judged = _with_adjustments(_tests(), VerdictPolicy("fdr_bh", 0.05))
    assert judged["p_adjusted"].to_list()[:2] == pytest.approx([0.04, 0.04])
    assert judged["is_significant"].to_list()[:2] == [True, True]
    assert judged["p_holm"].to_list()[:2] == pytest.approx([0.06, 0.06])
    assert judged["adjustment"][0] == "Benjamini-Hochberg"
