"""One WEAT on one embedding: coverage check, then scores, effect size, permutation p and interval.

A test whose coverage is below the threshold is not computed: it comes back with status
``insufficient coverage``, the reason spelled out, and no numbers (never a silent NaN).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

import numpy as np

from biaswh.compute.weat.association import word_associations
from biaswh.compute.weat.bootstrap import BootstrapMethod, effect_size_interval
from biaswh.compute.weat.coverage import (
    MATCH_POLICIES,
    MatchPolicy,
    Vocabulary,
    WordMatch,
    balance_targets,
    match_words,
    set_coverage,
)
from biaswh.compute.weat.effect_size import EFFECT_SIZE_SD, weat_effect_size
from biaswh.compute.weat.permutation import EXACT_LIMIT, RANDOM_PERMUTATIONS, weat_permutation_test
from biaswh.warehouse.settings.random_seeds import derive_seed

ROLES = ("target_x", "target_y", "attribute_a", "attribute_b")
Status = Literal["computed", "insufficient coverage", "undefined"]


@dataclass(frozen=True)
class WeatSettings:
    """Study-level WEAT options (``[weat]`` in the study TOML)."""

    match_policy: MatchPolicy = "exact"
    min_coverage: float = 0.8  # each word set must find at least this share of its listed words
    min_words: int = 2  # ... and use at least this many
    balance: bool = False  # drop seeded-random words from the larger target set
    exact_limit: int = EXACT_LIMIT
    n_permutations: int = RANDOM_PERMUTATIONS
    bootstrap_resamples: int = 5000
    bootstrap_method: BootstrapMethod = "percentile"
    confidence_level: float = 0.95

    def __post_init__(self):
        if self.match_policy not in MATCH_POLICIES:
            raise ValueError(f"match_policy must be one of {', '.join(MATCH_POLICIES)}, got {self.match_policy!r}")
        if self.bootstrap_method not in ("percentile", "basic", "BCa"):
            raise ValueError(f"bootstrap_method must be percentile, basic or BCa, got {self.bootstrap_method!r}")
        if not 0 < self.confidence_level < 1:
            raise ValueError(f"confidence_level must be in (0, 1), got {self.confidence_level}")
        if not 0 < self.min_coverage <= 1:
            raise ValueError(f"min_coverage must be in (0, 1], got {self.min_coverage}")
        if self.n_permutations < 100_000:
            raise ValueError(f"n_permutations must be at least 100000, got {self.n_permutations}")


@dataclass(frozen=True)
class WeatResult:
    """The outcome of one test on one embedding (numbers are None unless ``status == 'computed'``)."""

    embedding: str
    test_set: str
    test: str
    status: Status
    status_reason: str | None
    n_target_x: int
    n_target_y: int
    n_attribute_a: int
    n_attribute_b: int
    coverage: float  # the lowest per-set share of listed words found
    seed: int
    matches: tuple[WordMatch, ...] = field(repr=False)
    associations: dict[tuple[str, int], float] = field(repr=False, default_factory=dict)
    test_statistic: float | None = None
    effect_size: float | None = None
    effect_size_sd: str = EFFECT_SIZE_SD
    ci_low: float | None = None
    ci_high: float | None = None
    ci_method: str | None = None
    p_value: float | None = None
    p_method: str | None = None
    n_permutations: int | None = None


def _coverage_problem(matches: list[WordMatch], settings: WeatSettings) -> str | None:
    problems = []
    for role, (found, listed, share) in set_coverage(matches).items():
        used = sum(m.used for m in matches if m.set_role == role)
        if share < settings.min_coverage or used < settings.min_words:
            problems.append(f"{role} found {found} of {listed} words ({share:.0%}), uses {used}")
    if not problems:
        return None
    return (
        f"{'; '.join(problems)}: below the threshold of {settings.min_coverage:.0%} coverage"
        f" and {settings.min_words} words per set"
    )


def run_weat_test(
    words: list[dict],
    *,
    embedding: str,
    test_set: str,
    test: str,
    vocabulary: Vocabulary,
    vectors,
    settings: WeatSettings,
    study_seed: int,
) -> WeatResult:
    """Run one test; ``words`` are its listed words (set_role, position, word, excluded_by_definition).

    ``vectors`` is indexed by vocabulary position with a list of rows: a matrix, or
    :class:`~biaswh.compute.weat.vectors.LanceVectors` that fetches only the rows asked for.
    """
    seed = derive_seed(study_seed, embedding, test_set, test)
    matches = match_words(words, vocabulary, settings.match_policy)
    if settings.balance:
        matches = balance_targets(matches, np.random.default_rng([seed, 3]))
    rows = {
        role: [vocabulary.index[m.matched_word] for m in matches if m.set_role == role and m.used] for role in ROLES
    }
    coverage = min(share for _, _, share in set_coverage(matches).values())
    base = dict(
        embedding=embedding,
        test_set=test_set,
        test=test,
        seed=seed,
        coverage=coverage,
        n_target_x=len(rows["target_x"]),
        n_target_y=len(rows["target_y"]),
        n_attribute_a=len(rows["attribute_a"]),
        n_attribute_b=len(rows["attribute_b"]),
    )
    problem = _coverage_problem(matches, settings)
    if problem is not None:
        return WeatResult(status="insufficient coverage", status_reason=problem, matches=tuple(matches), **base)
    a, b = vectors[rows["attribute_a"]], vectors[rows["attribute_b"]]
    s_x = word_associations(vectors[rows["target_x"]], a, b)
    s_y = word_associations(vectors[rows["target_y"]], a, b)
    used_targets = [m for role in ("target_x", "target_y") for m in matches if m.used and m.set_role == role]
    associations = {(m.set_role, m.position): float(s) for m, s in zip(used_targets, np.concatenate([s_x, s_y]))}
    try:
        effect = weat_effect_size(s_x, s_y)
    except ValueError as exc:
        return WeatResult(
            status="undefined", status_reason=str(exc), matches=tuple(matches), associations=associations, **base
        )
    permutation = weat_permutation_test(
        s_x,
        s_y,
        seed=np.random.SeedSequence([seed, 1]),
        exact_limit=settings.exact_limit,
        n_permutations=settings.n_permutations,
    )
    interval = effect_size_interval(
        s_x,
        s_y,
        seed=np.random.SeedSequence([seed, 2]),
        confidence_level=settings.confidence_level,
        n_resamples=settings.bootstrap_resamples,
        method=settings.bootstrap_method,
    )
    return WeatResult(
        status="computed",
        status_reason=None,
        matches=tuple(matches),
        associations=associations,
        test_statistic=effect.test_statistic,
        effect_size=effect.effect_size,
        ci_low=interval.low,
        ci_high=interval.high,
        ci_method=interval.method,
        p_value=permutation.p_value,
        p_method=permutation.method,
        n_permutations=permutation.n_permutations,
        **base,
    )
