"""Feature importance: how well, and from which features, a classifier tells selected posts apart.

Per condition a seeded scikit-learn random forest predicts ``selected`` from the features
(numerical and binary as numbers, categorical as ordinal codes of the sorted categories;
missing values stay NaN, which scikit-learn's forests handle). Stratified k-fold
cross-validation gives the held-out AUROC; each fold's forest gives impurity importance
(``feature_importances_``) and permutation importance on the held-out fold (scoring ROC AUC,
the numbers of ``sklearn.inspection.permutation_importance`` in one prediction: see
:func:`permutation_importance`). Both are averaged over folds.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import polars as pl

if TYPE_CHECKING:
    from sklearn.ensemble import RandomForestClassifier


@dataclass(frozen=True)
class FeatureImportance:
    """One feature's importance in one condition's classifier."""

    feature: str
    feature_type: str
    impurity_importance: float
    permutation_importance: float
    permutation_importance_sd: float


@dataclass(frozen=True)
class ConditionImportance:
    """A condition's cross-validated classifier: AUROC over folds and every feature's importance."""

    n_samples: int
    n_positive: int
    n_negative: int
    n_folds: int
    auroc: float
    auroc_sd: float
    variant: str
    features: tuple[FeatureImportance, ...]


def design_matrix(values: pl.DataFrame) -> tuple[np.ndarray, np.ndarray, list[tuple[str, str]]]:
    """Posts × features from the long post-level frame of one condition.

    ``values`` has one row per (post, feature): ``post`` (the post's key), ``selected``,
    ``feature``, ``feature_type``, ``value_text``, ``value_number``. Returns X, y and the
    (feature, type) of each column, features in name order.
    """
    types = dict(values.select("feature", "feature_type").unique().iter_rows())
    posts = values.select("post", "selected").unique("post").sort("post")
    columns, names = [], []
    for feature in sorted(types):
        rows = values.filter(pl.col("feature") == feature)
        if types[feature] == "categorical":
            categories = sorted(v for v in rows["value_text"].unique().to_list() if v is not None)
            codes = {c: float(i) for i, c in enumerate(categories)}
            code = pl.col("value_text").replace_strict(codes, default=None, return_dtype=pl.Float64)
            rows = rows.with_columns(code.alias("x"))
        else:
            rows = rows.with_columns(pl.col("value_number").cast(pl.Float64).alias("x"))
        joined = posts.join(rows.select("post", "x"), on="post", how="left")
        columns.append(joined["x"].fill_null(np.nan).to_numpy())
        names.append((feature, types[feature]))
    return np.column_stack(columns), posts["selected"].to_numpy().astype(int), names


def roc_auc(y: np.ndarray, score: np.ndarray) -> float:
    """``sklearn.metrics.roc_auc_score(y, score)`` for 0/1 labels ``y``, bit for bit, without its
    input checks (8 ms a call measured here, most of the importance job; this takes 0.1 ms).

    The same arithmetic in the same order: scores sorted descending (stable), true and false
    positives counted at each distinct score, collinear points dropped as ``roc_curve`` drops
    them, the trapezoid over (FPR, TPR). NaN when ``y`` holds one class, as scikit-learn's.
    """
    truth = np.asarray(y)
    if truth.min() == truth.max():
        return float("nan")
    order = np.argsort(score, kind="stable")[::-1]
    ranked, truth = np.asarray(score)[order], truth[order].astype(np.float64)
    thresholds = np.r_[np.flatnonzero(np.diff(ranked)), truth.size - 1]
    tps = np.cumsum(truth, dtype=np.float64)[thresholds]
    fps = 1 + thresholds.astype(np.float64) - tps
    if fps.size > 2:
        corners = np.flatnonzero(np.r_[True, np.logical_or(np.diff(fps, 2), np.diff(tps, 2)), True])
        fps, tps = fps[corners], tps[corners]
    tps, fps = np.r_[0.0, tps], np.r_[0.0, fps]
    return float(np.trapezoid(tps / tps[-1], fps / fps[-1]))


def permutation_importance(
    forest: RandomForestClassifier, x: np.ndarray, y: np.ndarray, *, repeats: int, seed: int
) -> tuple[np.ndarray, np.ndarray, float]:
    """Each column's drop in ROC AUC when shuffled: (mean, SD over ``repeats``, the unshuffled AUC).

    The numbers of ``sklearn.inspection.permutation_importance(forest, x, y, scoring="roc_auc",
    n_repeats=repeats, random_state=seed)``, bit for bit (tests/compute/recsys/
    test_recsys_importance.py holds it to them): the same seeds and the same cumulative
    shuffles of a column. But every shuffled copy is stacked and the forest predicts once: a
    forest's probability for a row does not depend on the other rows, and scikit-learn's call
    per copy (a Python call per tree each time) was most of the demo's recommendation jobs.
    """
    column_seed = np.random.RandomState(seed).randint(np.iinfo(np.int32).max + 1)
    copies = []
    for column in range(x.shape[1]):
        shuffles, permuted, order = np.random.RandomState(column_seed), x.copy(), np.arange(len(x))
        for _ in range(repeats):
            shuffles.shuffle(order)
            permuted[:, column] = permuted[order, column]
            copies.append(permuted.copy())
    positive = list(forest.classes_).index(1)
    probabilities = forest.predict_proba(np.vstack([x, *copies]))[:, positive].reshape(1 + len(copies), len(x))
    baseline, *shuffled = (roc_auc(y, p) for p in probabilities)
    drops = baseline - np.array(shuffled).reshape(x.shape[1], repeats)
    return drops.mean(axis=1), drops.std(axis=1), baseline


def condition_importance(
    values: pl.DataFrame, *, seed: int, trees: int = 100, folds: int = 5, repeats: int = 5, threads: int = 2
) -> ConditionImportance:
    """Cross-validated random-forest importance of every feature for one condition.

    ``threads`` builds each forest's trees (the forest is the same for any number). Raises
    ``ValueError`` when either class has fewer posts than two folds need.
    """
    # scikit-learn is imported when a forest is fitted: about 0.6 s that no other study pays for.
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.model_selection import StratifiedKFold

    x, y, names = design_matrix(values)
    seed = seed % 2**32  # scikit-learn takes 32-bit seeds; derive_seed gives 63 bits
    n_positive, n_negative = int(y.sum()), int(len(y) - y.sum())
    n_folds = min(folds, n_positive, n_negative)
    if n_folds < 2:
        raise ValueError(f"needs at least 2 selected and 2 other posts, got {n_positive} and {n_negative}")
    splitter = StratifiedKFold(n_splits=n_folds, shuffle=True, random_state=seed)
    aurocs, impurity, permutation, permutation_sd = [], [], [], []
    for train, test in splitter.split(x, y):
        # Trees are built on threads (each tree's seed is drawn before, so the forest is the
        # same), but predicted on one: the threads would add the trees' votes in any order.
        forest = RandomForestClassifier(n_estimators=trees, random_state=seed, n_jobs=threads).fit(x[train], y[train])
        forest.set_params(n_jobs=1)
        mean, sd, auroc = permutation_importance(forest, x[test], y[test], repeats=repeats, seed=seed)
        aurocs.append(auroc)
        impurity.append(forest.feature_importances_)
        permutation.append(mean)
        permutation_sd.append(sd)
    impurity_mean, permutation_mean = np.mean(impurity, axis=0), np.mean(permutation, axis=0)
    permutation_sd_mean = np.mean(permutation_sd, axis=0)
    features = tuple(
        FeatureImportance(name, kind, float(impurity), float(permutation), float(sd))
        for (name, kind), impurity, permutation, sd in zip(
            names, impurity_mean, permutation_mean, permutation_sd_mean, strict=True
        )
    )
    variant = (
        f"RandomForestClassifier(n_estimators={trees}, random_state={seed}); StratifiedKFold({n_folds}, shuffle); "
        f"impurity importance and permutation importance (ROC AUC, {repeats} repeats) on held-out folds"
    )
    return ConditionImportance(
        n_samples=len(y),
        n_positive=n_positive,
        n_negative=n_negative,
        n_folds=n_folds,
        auroc=float(np.mean(aurocs)),
        auroc_sd=float(np.std(aurocs, ddof=1)) if n_folds > 1 else float("nan"),
        variant=variant,
        features=features,
    )
