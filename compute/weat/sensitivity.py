"""How much the WEAT effect size d depends on which words the sets list (Antoniak & Mimno 2021).

Two views: d with each used word left out in turn (the most influential words are those whose
removal moves d most), and a seeded bootstrap that resamples the words of all four sets, each
within its set (the attribute sets too, unlike the interval of d, which holds them fixed).
"""

from __future__ import annotations

import numpy as np

from biaswh.compute.weat.association import cosine_matrix
from biaswh.compute.weat.resampling import (
    DEFAULT_RESAMPLING,
    MetricResult,
    ResamplingSettings,
    percentile_interval,
    resample_counts,
    sign_of,
)

CONVENTION = (
    "WEAT d (sample SD, ddof 1); interval: percentile bootstrap resampling the words of X, Y, A and B,"
    " each within its set; spread: range of d leaving out one used word at a time"
)
_CHUNK = 1000


def _d(s_x: np.ndarray, s_y: np.ndarray) -> float:
    pooled = np.concatenate([s_x, s_y])
    return float((s_x.mean() - s_y.mean()) / pooled.std(ddof=1))


def _bootstrap_d(cos_a: np.ndarray, cos_b: np.ndarray, n_x: int, rng: np.random.Generator, size: int) -> np.ndarray:
    n_targets = cos_a.shape[0]
    weights = np.hstack([resample_counts(rng, n_x, size), resample_counts(rng, n_targets - n_x, size)])
    scores = (
        resample_counts(rng, cos_a.shape[1], size) @ cos_a.T / cos_a.shape[1]
        - resample_counts(rng, cos_b.shape[1], size) @ cos_b.T / cos_b.shape[1]
    )
    mean_x = (weights[:, :n_x] * scores[:, :n_x]).sum(axis=1) / n_x
    mean_y = (weights[:, n_x:] * scores[:, n_x:]).sum(axis=1) / (n_targets - n_x)
    centre = (weights * scores).sum(axis=1) / n_targets
    variance = (weights * (scores - centre[:, None]) ** 2).sum(axis=1) / (n_targets - 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return (mean_x - mean_y) / np.sqrt(variance)


def _leave_one_out(cos_a: np.ndarray, cos_b: np.ndarray, n_x: int, words: dict[str, list[str]]) -> list[dict]:
    s = cos_a.mean(axis=1) - cos_b.mean(axis=1)
    changes = []
    for index, word in enumerate(words["target_x"] + words["target_y"]):
        keep = np.delete(np.arange(len(s)), index)
        n_x_left = n_x - (index < n_x)
        role = "target_x" if index < n_x else "target_y"
        changes.append((role, word, _d(s[keep][:n_x_left], s[keep][n_x_left:])))
    for role, matrix, other, sign in (("attribute_a", cos_a, cos_b, 1), ("attribute_b", cos_b, cos_a, -1)):
        for index, word in enumerate(words[role]):
            left = np.delete(matrix, index, axis=1).mean(axis=1)
            s_without = sign * (left - other.mean(axis=1))
            changes.append((role, word, _d(s_without[:n_x], s_without[n_x:])))
    return [{"set_role": role, "word": word, "d_without": value} for role, word, value in changes]


def word_set_sensitivity(
    vectors: dict[str, np.ndarray],
    words: dict[str, list[str]],
    *,
    seed: int,
    settings: ResamplingSettings = DEFAULT_RESAMPLING,
    n_influential: int = 5,
) -> MetricResult:
    """d with its leave-one-word-out range, its bootstrap interval over the words of every set,
    and the ``n_influential`` words whose removal moves d most (in ``details``)."""
    targets = np.concatenate([vectors["target_x"], vectors["target_y"]])
    n_x = len(vectors["target_x"])
    if min(len(vectors[r]) for r in vectors) < 2:
        raise ValueError("leave-one-word-out needs at least 2 words in every set")
    cos_a, cos_b = cosine_matrix(targets, vectors["attribute_a"]), cosine_matrix(targets, vectors["attribute_b"])
    s = cos_a.mean(axis=1) - cos_b.mean(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        value = _d(s[:n_x], s[n_x:])
    if not np.isfinite(value):
        raise ValueError("every target word has the same association score: d is undefined")
    rng = np.random.default_rng(np.random.SeedSequence([seed, 4]))
    resampled = np.concatenate(
        [
            _bootstrap_d(cos_a, cos_b, n_x, rng, min(_CHUNK, settings.bootstrap_resamples - start))
            for start in range(0, settings.bootstrap_resamples, _CHUNK)
        ]
    )
    interval = percentile_interval(resampled, settings.confidence_level)
    dropped = _leave_one_out(cos_a, cos_b, n_x, words)
    for row in dropped:
        row["change"] = row["d_without"] - value
    influential = sorted(dropped, key=lambda r: -abs(r["change"]))[:n_influential]
    loo = np.array([r["d_without"] for r in dropped])
    return MetricResult(
        metric="d_word_sets",
        attribute_set="both",
        value=value,
        group_x_value=None,
        group_y_value=None,
        weat_sign=sign_of(value),
        direction=f"target_{'x' if value > 0 else 'y'} closer to attribute_a" if value != 0 else "no difference",
        ci_low=interval[0],
        ci_high=interval[1],
        ci_method="percentile bootstrap over the words of X, Y, A and B, each within its set",
        confidence_level=settings.confidence_level,
        bootstrap_resamples=settings.bootstrap_resamples,
        p_value=None,
        p_method=None,
        p_alternative=None,
        n_permutations=None,
        n_target_x=n_x,
        n_target_y=len(targets) - n_x,
        n_attributes=len(vectors["attribute_a"]) + len(vectors["attribute_b"]),
        vectors="unit",
        convention=CONVENTION,
        spread_low=float(np.nanmin(loo)),
        spread_high=float(np.nanmax(loo)),
        spread_method="min and max of d leaving out one used word of X, Y, A or B at a time",
        details={"most_influential": influential},
    )
