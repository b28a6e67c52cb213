"""Conditions' importances on worker processes: the same numbers as one by one here, in order."""

from __future__ import annotations

import polars as pl

from biaswh.compute.recsys.importance import condition_importance
from biaswh.compute.recsys.importance_pool import condition_importances
from tests.compute.recsys.test_recsys_importance import _condition

OPTIONS = {"trees": 12, "folds": 3, "repeats": 2}


def test_worker_processes_give_each_condition_its_numbers_in_order_and_keep_a_refusal():
    too_small = _condition(9, n=60).with_columns((pl.col("post") == 0).alias("selected"))
    conditions = [(_condition(5, n=120), 3), (too_small, 4), (_condition(6, n=150), 2**40 + 1)]
    on_workers = condition_importances(conditions, OPTIONS, workers=2)
    here = condition_importances(conditions, OPTIONS, workers=1)
    by_hand = condition_importance(conditions[2][0], seed=2**40 + 1, threads=1, **OPTIONS)
    assert on_workers[0] == here[0] and on_workers[2] == here[2] == by_hand
    assert on_workers[0] != on_workers[2] and on_workers[0].n_samples == 120
    assert isinstance(on_workers[1], ValueError) and "at least 2 selected" in str(on_workers[1])
    assert str(on_workers[1]) == str(here[1])
