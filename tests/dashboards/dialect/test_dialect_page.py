"""The dialect page: recall chart fitted to its data, no orphan facet, a finding that respects significance."""

from __future__ import annotations

import re

import pandas as pd

from biaswh.dashboards.dialect.charts import recall_at_k_chart
from biaswh.dashboards.dialect.page import finding

RETRIEVERS = ["bm25", "dense", "hybrid_minmax", "hybrid_rrf", "hybrid_union"]


def _recall(ks=(1, 2, 5, 10, 20)) -> pd.DataFrame:
    rows = [
        {
            "retriever": r,
            "variant": v,
            "k": k,
            "recall": 0.93 + 0.003 * i,
            "recall_ci_low": 0.91 + 0.003 * i,
            "recall_ci_high": 0.97 + 0.001 * i,
        }
        for r in RETRIEVERS
        for v in ("sae", "aae")
        for i, k in enumerate(ks)
    ]
    return pd.DataFrame(rows)


def test_recall_axes_fit_the_data_and_the_run_depth():
    spec = recall_at_k_chart(_recall(), depth=20).to_dict()
    band, line = spec["spec"]["layer"]
    y_domain = band["encoding"]["y"]["scale"]["domain"]
    assert 0.85 < y_domain[0] < 0.91 and 0.97 < y_domain[1] <= 1.0  # not 0-1 for data in 0.9-1
    assert line["encoding"]["y"]["scale"]["domain"] == y_domain
    assert band["encoding"]["x"]["scale"]["domain"] == [1, 20]  # not an axis to 100


def test_recall_facets_leave_no_empty_cell():
    spec = recall_at_k_chart(_recall()).to_dict()
    assert spec["columns"] == len(RETRIEVERS)
    assert spec["facet"]["field"] == "retriever"


def _row(retriever, k, delta, low, high, p_holm):
    return {
        "retriever": retriever,
        "k": k,
        "variant_a": "sae",
        "variant_b": "aae",
        "recall_a": 0.9,
        "recall_b": 0.9 - delta / 100,
        "delta_pp": delta,
        "ci_low": low,
        "ci_high": high,
        "p_adjusted": p_holm,
        "adjustment": "Holm",
        "is_significant": p_holm < 0.05,
    }


def _text(html: str) -> str:
    return re.sub(r"<[^>]+>", "", html)


def test_finding_leads_with_no_evidence_for_null_results():
    sentence = _text(
        finding(
            [_row("bm25", 5, 2.0, -1.0, 5.0, 0.6), _row("dense", 5, -4.0, -9.0, 1.0, 0.3)],
            {("bm25", 5): 12.5, ("dense", 5): 15.0},
            alpha=0.05,
        )
    )
    assert sentence.startswith(
        "No evidence of a difference between sae and aae: 0 of 2 highlighted comparisons significant after Holm"
        " within each retriever over k = 5, α = 0.05."
    )
    assert "-4.0 points (dense, k = 5; 95% CI [-9.0, +1.0])" in sentence
    assert (
        "A gap was detectable (80% power, α = 0.05) in 2 of 2 comparisons, and only from 12.5 to 15.0 points up"
        in sentence
    )
    assert "higher" not in sentence and "lower" not in sentence


def test_finding_states_the_direction_of_a_significant_result():
    rows = [_row("bm25", 5, 8.0, 3.0, 13.0, 0.01), _row("dense", 5, 1.0, -2.0, 4.0, 0.7)]
    sentence = _text(finding(rows, {}, alpha=0.05))
    assert sentence.startswith("sae recall is higher than aae for bm25 at k = 5")
    assert (
        "1 of 2 highlighted comparisons significant after Holm within each retriever over k = 5, α = 0.05" in sentence
    )
