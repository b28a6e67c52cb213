"""WEAT's other metrics judged by the study's verdict policy: statsmodels' numbers per family, any policy."""

from __future__ import annotations

import polars as pl
import pytest
from statsmodels.stats.multitest import multipletests

from biaswh.analysis.weat.metric_verdicts import SCHEMA, metric_verdicts
from biaswh.stats.multiple_comparisons import DEFAULT_POLICY, VerdictPolicy, verdict_policy

# Two embeddings, three tests, two metric rows with a p and two without (pooled MAC, d over word sets).
P_VALUES = {
    ("glove", "rnd", "attribute_a"): [0.004, 0.012, 0.030],
    ("glove", "ect", "attribute_a"): [0.002, 0.2, 0.009],
    ("word2vec", "rnd", "attribute_a"): [0.02, 0.001, 0.5],
}


def _rows() -> pl.DataFrame:
    rows = []
    for (embedding, metric, attribute_set), p_values in P_VALUES.items():
        for number, p in enumerate(p_values, start=1):
            rows.append((embedding, "caliskan2017", f"weat{number}", metric, attribute_set, "computed", p))
    for embedding in ("glove", "word2vec"):
        rows.append((embedding, "caliskan2017", "weat1", "mac", "both", "computed", None))
        rows.append((embedding, "caliskan2017", "weat2", "d_word_sets", "both", "computed", None))
        rows.append((embedding, "caliskan2017", "weat3", "rnsb", "both", "insufficient coverage", None))
    columns = ["embedding", "test_set", "test", "metric", "attribute_set", "status", "p_value"]
    return pl.DataFrame(rows, schema=columns, orient="row")


@pytest.mark.parametrize(
    "policy", [DEFAULT_POLICY, VerdictPolicy("fdr_bh", 0.01), VerdictPolicy("holm", 0.01)], ids=str
)
def test_each_embeddings_metric_and_attribute_set_is_one_family_adjusted_by_the_policy(policy):
    judged = metric_verdicts(_rows(), run_id="r1", policy=policy)
    assert judged.schema == pl.Schema(SCHEMA)
    for (embedding, metric, attribute_set), p_values in P_VALUES.items():
        key = (pl.col("embedding") == embedding) & (pl.col("metric") == metric)
        family = judged.filter(key & (pl.col("attribute_set") == attribute_set)).sort("test")
        reject, expected, *_ = multipletests(p_values, alpha=policy.alpha, method=policy.method)
        assert family["p_adjusted"].to_list() == pytest.approx(list(expected), abs=1e-15)
        assert family["is_significant"].to_list() == list(reject)
        assert set(family["family_size"]) == {3} and set(family["adjustment"]) == {policy.name}
        assert set(family["alpha"]) == {policy.alpha} and set(family["run_id"]) == {"r1"}
    untested = judged.filter(pl.col("p_value").is_null())
    assert untested.height == 6 and untested["family"].is_null().all() and untested["p_adjusted"].is_null().all()
    assert not untested["is_significant"].any()


def test_the_policy_changes_the_verdicts_where_it_should():
    # glove's ECT family (0.002, 0.2, 0.009): Holm at 0.05 rejects weat1 and weat3; at 0.01 only weat1 (0.006);
    # Benjamini-Hochberg at 0.01 rejects weat1 (0.006) but not weat3 (0.0135).
    def significant(policy):
        judged = metric_verdicts(_rows(), run_id="r1", policy=policy)
        ect = judged.filter((pl.col("embedding") == "glove") & (pl.col("metric") == "ect")).sort("test")
        return ect["is_significant"].to_list()

    assert significant(DEFAULT_POLICY) == [True, False, True]
    assert significant(VerdictPolicy("holm", 0.01)) == [True, False, False]
    assert significant(VerdictPolicy("fdr_bh", 0.01)) == [True, False, False]
    assert significant(VerdictPolicy("fdr_bh", 0.05)) == [True, False, True]
    # a study's [verdicts] table is the policy the step passes
    assert verdict_policy({"verdicts": {"adjustment": "bh", "alpha": 0.01}}) == VerdictPolicy("fdr_bh", 0.01)
