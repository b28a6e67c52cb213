"""Per-condition random-forest importance: equal to scikit-learn run by hand, seeded, and it
recovers an injected preference."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from sklearn.ensemble import RandomForestClassifier
from sklearn.inspection import permutation_importance as scikit_learn_permutation_importance
from sklearn.metrics import roc_auc_score
from sklearn.model_selection import StratifiedKFold, cross_val_score

from biaswh.compute.recsys.importance import condition_importance, design_matrix, permutation_importance, roc_auc

TOPICS = ("politics", "sports", "tech")


def _condition(seed: int, n: int = 300) -> pl.DataFrame:
    """Long post-level rows of one condition: selection depends on length and on topic politics."""
    rng = np.random.default_rng(seed)
    length = rng.normal(50, 10, n)
    noise = rng.normal(0, 1, n)
    topic = rng.choice(TOPICS, n)
    score = (length - 50) / 10 + 1.5 * (topic == "politics") + rng.normal(0, 1, n)
    selected = score > np.quantile(score, 0.75)
    rows = []
    for post in range(n):
        for feature, kind, value in (
            ("text_length", "numerical", length[post]),
            ("noise", "numerical", noise[post]),
            ("primary_topic", "categorical", topic[post]),
        ):
            rows.append(
                {
                    "post": post,
                    "selected": bool(selected[post]),
                    "feature": feature,
                    "feature_type": kind,
                    "value_text": value if kind == "categorical" else None,
                    "value_number": None if kind == "categorical" else float(value),
                }
            )
    return pl.DataFrame(rows)


def test_the_injected_preference_ranks_first_and_the_noise_last():
    result = condition_importance(_condition(1), seed=7, trees=60, folds=4, repeats=4)
    permutation = {f.feature: f.permutation_importance for f in result.features}
    assert max(permutation, key=permutation.get) == "text_length"
    assert permutation["primary_topic"] > permutation["noise"]
    assert result.auroc > 0.75 and (result.n_samples, result.n_positive, result.n_folds) == (300, 75, 4)


def test_auroc_and_impurity_equal_scikit_learn_run_by_hand():
    values = _condition(2)
    result = condition_importance(values, seed=11, trees=30, folds=3, repeats=2)
    x, y, names = design_matrix(values)
    assert [name for name, _ in names] == ["noise", "primary_topic", "text_length"]
    assert sorted(set(x[:, 1])) == [0.0, 1.0, 2.0]  # ordinal codes of the sorted topics
    splitter = StratifiedKFold(n_splits=3, shuffle=True, random_state=11)
    forest = RandomForestClassifier(n_estimators=30, random_state=11, n_jobs=1)
    by_hand = cross_val_score(forest, x, y, cv=splitter, scoring="roc_auc").mean()
    assert result.auroc == pytest.approx(by_hand, abs=1e-12)
    impurity = np.mean(
        [forest.fit(x[train], y[train]).feature_importances_ for train, _ in splitter.split(x, y)], axis=0
    )
    assert [f.impurity_importance for f in result.features] == pytest.approx(list(impurity), abs=1e-12)


@pytest.mark.parametrize("seed", [3, 2**31 + 17])
def test_permutation_importance_in_one_prediction_is_scikit_learns_bit_for_bit(seed):
    x, y, _ = design_matrix(_condition(4, n=120))
    forest = RandomForestClassifier(n_estimators=15, random_state=1, n_jobs=1).fit(x[:80], y[:80])
    mean, sd, auroc = permutation_importance(forest, x[80:], y[80:], repeats=4, seed=seed)
    theirs = scikit_learn_permutation_importance(
        forest, x[80:], y[80:], scoring="roc_auc", n_repeats=4, random_state=seed, n_jobs=1
    )
    assert mean.tolist() == theirs.importances_mean.tolist() and sd.tolist() == theirs.importances_std.tolist()
    assert auroc > 0.5 and mean[2] > 0  # text_length carries the preference: shuffling it costs AUC


def test_the_same_seed_gives_the_same_result_and_too_few_positives_are_refused():
    values = _condition(3)
    assert condition_importance(values, seed=5, trees=20, folds=3, repeats=2) == condition_importance(
        values, seed=5, trees=20, folds=3, repeats=2
    )
    assert condition_importance(values, seed=2**40 + 5, trees=20, folds=3, repeats=2).n_samples == 300
    one_positive = values.with_columns((pl.col("post") == 0).alias("selected"))
    with pytest.raises(ValueError, match="at least 2 selected"):
        condition_importance(one_positive, seed=5)


def test_roc_auc_is_scikit_learns_bit_for_bit_with_ties_and_one_class():
    rng = np.random.default_rng(20261126)
    for n in [2, 3, 7, 40, 301]:
        for _ in range(40):
            y = rng.integers(0, 2, n)
            if y.min() == y.max():
                y[0] = 1 - y[0]
            # Coarse scores tie often (a forest's vote fractions do); fine ones rarely.
            score = rng.integers(0, 6, n) / 5 if rng.random() < 0.5 else rng.random(n)
            assert roc_auc(y, score) == roc_auc_score(y, score), (n, y.tolist(), score.tolist())
    assert np.isnan(roc_auc(np.ones(5, dtype=int), rng.random(5)))
