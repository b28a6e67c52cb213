"""Every feature × condition gets the test of its type; pool definitions; failures are recorded."""

from __future__ import annotations

import polars as pl
import pytest

from biaswh.compute.recsys import conditions
from biaswh.compute.recsys.conditions import pool_vs_recommended
from biaswh.ingest.recsys.simulate import FEATURE_TYPES, simulate_posts

SMALL = {
    "datasets": ("twitter",),
    "providers": ("openai", "gemini"),
    "prompt_styles": ("general",),
    "pool_size": 120,
    "n_recommended": 40,
}


def test_one_result_per_feature_and_condition_with_the_metric_of_its_type(to_long):
    results = pool_vs_recommended(to_long(simulate_posts(seed=5, **SMALL)))
    assert len(results) == len(FEATURE_TYPES) * 2
    for item in results:
        expected = "Cohen's d" if FEATURE_TYPES[item.feature] == "numerical" else "Cramér's V"
        assert item.result.metric == expected and item.result.status == "ok"
        assert (item.result.n_recommended, item.result.n_pool) == (40, 80)


def test_all_shown_pool_includes_the_recommended_items_and_shrinks_the_effect(to_long):
    values = to_long(simulate_posts(seed=6, length_preference_d=1.0, **SMALL))
    original = {(r.feature, r.provider): r for r in pool_vs_recommended(values)}
    whole = {(r.feature, r.provider): r for r in pool_vs_recommended(values, pool="all_shown")}
    for provider in ("openai", "gemini"):
        a, b = original[("text_length", provider)].result, whole[("text_length", provider)].result
        assert (a.n_pool, b.n_pool) == (80, 120)
        assert 0 < b.bias < a.bias
        # Mean of the whole pool is a mixture: the gap shrinks by 1 - k/N = 2/3; the SD moves too.
        assert b.bias / a.bias == pytest.approx(2 / 3, abs=0.1)


def test_a_failing_test_is_recorded_with_its_message(to_long, monkeypatch):
    def broken(recommended, pool, **options):
        raise ArithmeticError("kernel exploded")

    monkeypatch.setitem(conditions.TESTS, "numerical", (broken, "value_number"))
    results = pool_vs_recommended(to_long(simulate_posts(seed=7, **SMALL)))
    failed = [r.result for r in results if r.feature == "text_length"]
    assert failed and all(r.status == "error" and r.bias == 0.0 and r.p_value == 1.0 for r in failed)
    assert failed[0].message == "ArithmeticError: kernel exploded"
    assert failed[0].metric == "Cohen's d (error: kernel exploded)"


def test_too_few_items_is_insufficient_data(to_long):
    values = to_long(simulate_posts(seed=8, **{**SMALL, "pool_size": 30, "n_recommended": 8}))
    assert {r.result.status for r in pool_vs_recommended(values)} == {"insufficient data"}


def test_unknown_feature_type_and_pool_are_refused(to_long):
    values = to_long(simulate_posts(seed=9, **SMALL))
    with pytest.raises(ValueError, match="unknown pool definition"):
        pool_vs_recommended(values, pool="everything")
    with pytest.raises(ValueError, match="unknown feature type"):
        pool_vs_recommended(values.with_columns(pl.lit("ordinal").alias("feature_type")))
