"""The shared result type of the embedding metrics and their two resampling schemes.

Every metric here is a function of the two target groups through per-word *features* (a
vector or a score per target word) averaged within each group, so one kernel
``kernel(x_mean, y_mean) -> statistic`` (vectorised over rows) serves three uses:

- the observed value (one row: the means of X and of Y);
- a permutation null: the target words re-partitioned into groups of sizes |X| and |Y|
  (all C(n, |X|) partitions when there are at most ``exact_limit``, p = k / C; else
  ``n_permutations`` seeded random partitions, p = (k + 1) / (B + 1), the observed one counted);
- a seeded bootstrap over words: the target words of X and of Y resampled with replacement,
  each within its set (attribute sets held fixed, as for the interval of d).
"""

from __future__ import annotations

import functools
import itertools
import math
from dataclasses import dataclass, field
from typing import Callable, Iterable, Iterator, Literal

import numpy as np

Kernel = Callable[[np.ndarray, np.ndarray], np.ndarray]
Alternative = Literal["two-sided", "greater", "less"]
VectorNorm = Literal["unit", "raw"]
_CHUNK = 4096
# Exact partitions up to this size stay in memory for the next metric of the same test.
_KEPT_BYTES = 32 * 2**20


@dataclass(frozen=True)
class MetricResult:
    """One embedding metric on one test (and attribute set): value, group values, interval and p.

    ``weat_sign`` orients the value like d: +1 when X is closer to A (or farther from B) than Y
    is, -1 for the reverse, 0 for none or when the metric has no direction.
    """

    metric: str
    attribute_set: str  # attribute_a, attribute_b or both
    value: float
    group_x_value: float | None
    group_y_value: float | None
    weat_sign: int
    direction: str
    ci_low: float
    ci_high: float
    ci_method: str
    confidence_level: float
    bootstrap_resamples: int
    p_value: float | None
    p_method: str | None
    p_alternative: str | None
    n_permutations: int | None
    n_target_x: int
    n_target_y: int
    n_attributes: int
    vectors: str
    convention: str
    spread_low: float | None = None
    spread_high: float | None = None
    spread_method: str | None = None
    details: dict = field(default_factory=dict)


@dataclass(frozen=True)
class PermutationP:
    """A permutation p-value and how it was obtained."""

    p_value: float
    method: Literal["exact", "randomised"]
    n_permutations: int
    alternative: str


def prepare(vectors: np.ndarray, norm: VectorNorm) -> np.ndarray:
    """float64 rows, scaled to unit length when ``norm == "unit"`` (a zero vector is refused)."""
    matrix = np.asarray(vectors, dtype=np.float64)
    if norm == "raw":
        return matrix
    if norm != "unit":
        raise ValueError(f"vectors must be 'unit' or 'raw', got {norm!r}")
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    if (norms == 0).any():
        raise ValueError("a zero vector has no direction: it cannot be unit-normalised")
    return matrix / norms


def in_shared_span(*matrices: np.ndarray) -> tuple[np.ndarray, ...]:
    """Each matrix's rows in coordinates of one orthonormal basis of all their rows' span.

    Every inner product and norm among the rows (and among their means) is kept, to rounding, in at
    most as many dimensions as there are rows: a 384-dimensional test of 40 words resamples in 40.
    """
    stacked = np.concatenate(matrices)
    if stacked.shape[0] >= stacked.shape[1]:
        return matrices
    basis, _ = np.linalg.qr(stacked.T)
    return tuple(m @ basis for m in matrices)


def _exceeds(values: np.ndarray, observed: float, alternative: Alternative) -> np.ndarray:
    tolerance = max(abs(observed), 1.0) * np.finfo(np.float64).eps * 1000
    if alternative == "greater":
        return values >= observed - tolerance
    if alternative == "less":
        return values <= observed + tolerance
    return np.abs(values) >= abs(observed) - tolerance


def _membership_chunks(n: int, n_x: int) -> Iterator[np.ndarray]:
    """Every partition of n words into |X| = n_x and the rest, as 0/1 rows in chunks of ``_CHUNK``,
    in itertools' order."""
    combinations = itertools.combinations(range(n), n_x)
    while chunk := list(itertools.islice(combinations, _CHUNK)):
        membership = np.zeros((len(chunk), n), dtype=np.float64)
        np.put_along_axis(membership, np.array(chunk), 1.0, axis=1)
        membership.flags.writeable = False
        yield membership


@functools.lru_cache(maxsize=4)
def _kept_membership_chunks(n: int, n_x: int) -> tuple[np.ndarray, ...]:
    return tuple(_membership_chunks(n, n_x))


def _exact_memberships(n: int, n_x: int, total: int) -> Iterable[np.ndarray]:
    """The partitions of :func:`_membership_chunks`; kept when they fit in ``_KEPT_BYTES``, since the
    metrics of one test (several kernels, both attribute sets) re-partition the same target words."""
    if total * n * 8 <= _KEPT_BYTES:
        return _kept_membership_chunks(n, n_x)
    return _membership_chunks(n, n_x)


def _partition_means(features: np.ndarray, membership: np.ndarray, n_x: int) -> tuple[np.ndarray, np.ndarray]:
    weights = membership if membership.dtype == np.float64 else membership.astype(np.float64)
    x_mean = weights @ features / n_x
    y_mean = (1.0 - weights) @ features / (len(features) - n_x)
    return x_mean, y_mean


def permutation_p(
    features_x: np.ndarray,
    features_y: np.ndarray,
    kernel: Kernel,
    *,
    alternative: Alternative,
    seed: int | np.random.SeedSequence,
    exact_limit: int,
    n_permutations: int,
) -> PermutationP:
    """p of the kernel's statistic under re-partitions of the target words (see the module docstring)."""
    features = np.concatenate([np.atleast_2d(features_x.T).T, np.atleast_2d(features_y.T).T])
    n, n_x = len(features), len(features_x)
    observed = float(kernel(features[:n_x].mean(axis=0)[None], features[n_x:].mean(axis=0)[None])[0])
    total = math.comb(n, n_x)
    count = 0
    if total <= exact_limit:
        for membership in _exact_memberships(n, n_x, total):
            count += int(
                np.count_nonzero(_exceeds(kernel(*_partition_means(features, membership, n_x)), observed, alternative))
            )
        return PermutationP(count / total, "exact", total, alternative)
    rng = np.random.default_rng(seed)
    for start in range(0, n_permutations, _CHUNK):
        size = min(_CHUNK, n_permutations - start)
        order = rng.permuted(np.tile(np.arange(n), (size, 1)), axis=1)[:, :n_x]
        membership = np.zeros((size, n), dtype=bool)
        np.put_along_axis(membership, order, True, axis=1)
        count += int(
            np.count_nonzero(_exceeds(kernel(*_partition_means(features, membership, n_x)), observed, alternative))
        )
    return PermutationP((count + 1) / (n_permutations + 1), "randomised", n_permutations, alternative)


def resample_counts(rng: np.random.Generator, n: int, size: int) -> np.ndarray:
    """``size`` rows of multiplicities of n words drawn n times with replacement (one bootstrap resample each)."""
    return rng.multinomial(n, np.full(n, 1.0 / n), size=size).astype(np.float64)


def percentile_interval(values: np.ndarray, confidence_level: float) -> tuple[float, float]:
    """The central ``confidence_level`` percentile interval of the finite values."""
    finite = values[np.isfinite(values)]
    if finite.size == 0:
        raise ValueError("no bootstrap resample has a finite value")
    tail = (1 - confidence_level) / 2 * 100
    low, high = np.percentile(finite, [tail, 100 - tail])
    return float(low), float(high)


def bootstrap_interval(
    features_x: np.ndarray,
    features_y: np.ndarray,
    kernel: Kernel,
    *,
    seed: int | np.random.SeedSequence,
    n_resamples: int,
    confidence_level: float,
) -> tuple[float, float]:
    """Percentile interval of the kernel's statistic over resamples of X and of Y, each within its set."""
    features_x = np.atleast_2d(features_x.T).T
    features_y = np.atleast_2d(features_y.T).T
    rng = np.random.default_rng(seed)
    values = []
    for start in range(0, n_resamples, _CHUNK):
        size = min(_CHUNK, n_resamples - start)
        x_mean = resample_counts(rng, len(features_x), size) @ features_x / len(features_x)
        y_mean = resample_counts(rng, len(features_y), size) @ features_y / len(features_y)
        with np.errstate(divide="ignore", invalid="ignore"):
            values.append(kernel(x_mean, y_mean))
    return percentile_interval(np.concatenate(values), confidence_level)


@dataclass(frozen=True)
class ResamplingSettings:
    """How many bootstrap resamples and permutations every metric draws, at which level."""

    confidence_level: float = 0.95
    bootstrap_resamples: int = 2000
    exact_limit: int = 20_000
    n_permutations: int = 9999


DEFAULT_RESAMPLING = ResamplingSettings()


def evaluate(
    features_x: np.ndarray,
    features_y: np.ndarray,
    kernel: Kernel,
    *,
    alternative: Alternative | None,
    seed: int,
    settings: ResamplingSettings,
) -> tuple[float, tuple[float, float], PermutationP | None]:
    """The observed statistic, its bootstrap interval and (when ``alternative`` is set) its permutation p."""
    fx, fy = np.atleast_2d(features_x.T).T, np.atleast_2d(features_y.T).T
    value = float(kernel(fx.mean(axis=0)[None], fy.mean(axis=0)[None])[0])
    if not np.isfinite(value):
        raise ValueError("the statistic is undefined for these words")
    interval = bootstrap_interval(
        fx,
        fy,
        kernel,
        seed=np.random.SeedSequence([seed, 1]),
        n_resamples=settings.bootstrap_resamples,
        confidence_level=settings.confidence_level,
    )
    p = None
    if alternative is not None:
        p = permutation_p(
            fx,
            fy,
            kernel,
            alternative=alternative,
            seed=np.random.SeedSequence([seed, 2]),
            exact_limit=settings.exact_limit,
            n_permutations=settings.n_permutations,
        )
    return value, interval, p


def sign_of(value: float) -> int:
    """-1, 0 or +1."""
    return int(np.sign(value)) if np.isfinite(value) else 0


def shared_fields(
    interval: tuple[float, float],
    p: PermutationP | None,
    settings: ResamplingSettings,
    *,
    n_target_x: int,
    n_target_y: int,
    n_attributes: int,
    ci_method: str = "percentile bootstrap over the target words of X and of Y (attribute sets fixed)",
) -> dict:
    """The :class:`MetricResult` fields every metric fills the same way."""
    return {
        "ci_low": interval[0],
        "ci_high": interval[1],
        "ci_method": ci_method,
        "confidence_level": settings.confidence_level,
        "bootstrap_resamples": settings.bootstrap_resamples,
        "p_value": None if p is None else p.p_value,
        "p_method": None if p is None else p.method,
        "p_alternative": None if p is None else p.alternative,
        "n_permutations": None if p is None else p.n_permutations,
        "n_target_x": n_target_x,
        "n_target_y": n_target_y,
        "n_attributes": n_attributes,
    }
