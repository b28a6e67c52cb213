"""Run the embedding metrics beside one WEAT: RND, RNSB, MAC, ECT, RIPA and word-set sensitivity.

A dict registry maps each metric's name to the rows it yields for one test (per attribute set
where the metric takes one). A metric that cannot be computed for a test (too few words, unequal
sets for pairwise RIPA) gives a row with status ``undefined`` and the reason, never a silent gap.
The p-values are raw: the ``weat_report`` analysis step adjusts and judges them by the study's
verdict policy (:mod:`biaswh.analysis.weat.metric_verdicts`), as it judges d.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Callable

import numpy as np

from biaswh.compute.weat.ect import embedding_coherence
from biaswh.compute.weat.mac import mean_average_cosine
from biaswh.compute.weat.resampling import MetricResult, ResamplingSettings, VectorNorm
from biaswh.compute.weat.ripa import RipaVariant, relational_inner_product
from biaswh.compute.weat.rnd import relative_norm_distance
from biaswh.compute.weat.rnsb import relative_negative_sentiment
from biaswh.compute.weat.sensitivity import word_set_sensitivity
from biaswh.warehouse.settings.random_seeds import derive_seed

ATTRIBUTE_ROLES = ("attribute_a", "attribute_b")


@dataclass(frozen=True)
class MetricSettings:
    """``[weat.metrics]`` in the study TOML."""

    names: tuple[str, ...] = ("rnd", "rnsb", "mac", "ect", "ripa", "d_word_sets")
    vectors: VectorNorm = "unit"  # RND, RNSB, ECT and RIPA on unit-normalised ("unit") or raw vectors
    ripa: RipaVariant = "mean_difference"
    rnsb_splits: int = 100
    bootstrap_resamples: int = 2000
    n_permutations: int = 9999
    exact_limit: int = 20_000

    def __post_init__(self):
        object.__setattr__(self, "names", tuple(self.names))
        twice = sorted({name for name in self.names if self.names.count(name) > 1})
        if twice:
            raise ValueError(f"names: {', '.join(map(repr, twice))} listed twice; name each metric once")
        unknown = sorted(set(self.names) - set(METRICS))
        if unknown:
            raise ValueError(f"metrics.names: unknown metric(s) {', '.join(unknown)}; known: {', '.join(METRICS)}")
        if self.vectors not in ("unit", "raw"):
            raise ValueError(f"metrics.vectors must be 'unit' or 'raw', got {self.vectors!r}")
        if self.ripa not in ("mean_difference", "pairwise"):
            raise ValueError(f"metrics.ripa must be 'mean_difference' or 'pairwise', got {self.ripa!r}")
        if self.rnsb_splits < 2 or self.bootstrap_resamples < 100 or self.n_permutations < 999:
            raise ValueError("metrics: rnsb_splits >= 2, bootstrap_resamples >= 100 and n_permutations >= 999")


@dataclass(frozen=True)
class MetricOutcome:
    """One metric row of one test: the result, or why there is none."""

    metric: str
    attribute_set: str
    status: str  # computed, undefined
    status_reason: str | None
    result: MetricResult | None
    seed: int


Runner = Callable[[dict, dict, int, MetricSettings, ResamplingSettings], list[tuple[str, str, Callable]]]


def _per_attribute(
    metric: str | Callable[[MetricSettings], str],
    function: Callable,
    options: dict[str, str],
    vectors,
    words,
    seed,
    settings,
    resampling,
):
    """A Runner once the metric, its function and its options (keyword -> MetricSettings field) are bound.

    It is bound with functools.partial, not built as a closure at import, so its body runs for each test.
    """
    return [
        (
            metric if isinstance(metric, str) else metric(settings),
            role,
            lambda role=role: function(
                vectors["target_x"],
                vectors["target_y"],
                vectors[role],
                attribute_set=role,
                seed=seed,
                settings=resampling,
                **{k: getattr(settings, v) for k, v in options.items()},
            ),
        )
        for role in ATTRIBUTE_ROLES
    ]


def _mac(vectors, words, seed, settings, resampling):
    roles = [(role,) for role in ATTRIBUTE_ROLES] + [ATTRIBUTE_ROLES]
    return [
        (
            "mac",
            "both" if len(chosen) == 2 else chosen[0],
            lambda chosen=chosen: mean_average_cosine(
                vectors["target_x"],
                vectors["target_y"],
                {role: vectors[role] for role in chosen},
                seed=seed,
                settings=resampling,
            ),
        )
        for chosen in roles
    ]


def _rnsb(vectors, words, seed, settings, resampling):
    return [
        (
            "rnsb",
            "both",
            lambda: relative_negative_sentiment(
                *(vectors[r] for r in ("target_x", "target_y", "attribute_a", "attribute_b")),
                seed=seed,
                vectors=settings.vectors,
                n_splits=settings.rnsb_splits,
                settings=resampling,
            ),
        )
    ]


def _sensitivity(vectors, words, seed, settings, resampling):
    return [("d_word_sets", "both", lambda: word_set_sensitivity(vectors, words, seed=seed, settings=resampling))]


METRICS: dict[str, Runner] = {
    "rnd": functools.partial(_per_attribute, "rnd", relative_norm_distance, {"vectors": "vectors"}),
    "rnsb": _rnsb,
    "mac": _mac,
    "ect": functools.partial(_per_attribute, "ect", embedding_coherence, {"vectors": "vectors"}),
    "ripa": functools.partial(
        _per_attribute,
        lambda settings: "ripa" if settings.ripa == "mean_difference" else "ripa_pairwise",
        relational_inner_product,
        {"vectors": "vectors", "variant": "ripa"},
    ),
    "d_word_sets": _sensitivity,
}


def planned_rows(settings: MetricSettings) -> list[tuple[str, str]]:
    """(metric, attribute set) of every row the selected metrics give for a test."""
    rows = {
        "rnd": [("rnd", r) for r in ATTRIBUTE_ROLES],
        "ect": [("ect", r) for r in ATTRIBUTE_ROLES],
        "ripa": [("ripa" if settings.ripa == "mean_difference" else "ripa_pairwise", r) for r in ATTRIBUTE_ROLES],
        "mac": [("mac", r) for r in (*ATTRIBUTE_ROLES, "both")],
        "rnsb": [("rnsb", "both")],
        "d_word_sets": [("d_word_sets", "both")],
    }
    return [row for name in settings.names for row in rows[name]]


def run_metrics(
    vectors: dict[str, np.ndarray],
    words: dict[str, list[str]],
    *,
    embedding: str,
    test_set: str,
    test: str,
    settings: MetricSettings,
    confidence_level: float,
    study_seed: int,
) -> list[MetricOutcome]:
    """Every selected metric on one test's used words (``vectors`` and ``words`` keyed by set role)."""
    resampling = ResamplingSettings(
        confidence_level=confidence_level,
        bootstrap_resamples=settings.bootstrap_resamples,
        exact_limit=settings.exact_limit,
        n_permutations=settings.n_permutations,
    )
    outcomes = []
    for name in settings.names:
        seed = derive_seed(study_seed, embedding, test_set, test, name)
        for metric, role, compute in METRICS[name](vectors, words, seed, settings, resampling):
            try:
                outcomes.append(MetricOutcome(metric, role, "computed", None, compute(), seed))
            except ValueError as exc:
                outcomes.append(MetricOutcome(metric, role, "undefined", str(exc), None, seed))
    return outcomes
