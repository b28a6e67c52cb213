"""The tests behind an ordering claim between measurements made on the same units.

"Feature A explains more variance than feature B" compares two effect sizes measured in the
same conditions: :func:`paired_wilcoxon`, the Wilcoxon signed-rank test of the paired
differences (scipy), with the matched-pairs rank-biserial correlation and a seeded bootstrap
interval of it. "Prompt styles differ" compares k measurements per block:
:func:`friedman`, Friedman's test (scipy), with Kendall's W and a seeded bootstrap interval
over blocks. Only a significant test (after the page's adjustment) lets a page name a leader.
"""

from __future__ import annotations

import math

import numpy as np

from biaswh.stats.paired.result import TestResult
from biaswh.stats.paired.wilcoxon import rank_biserial, rank_biserial_rows
from biaswh.warehouse.deferred_modules import scipy_stats


def _quantiles(values: np.ndarray, confidence: float) -> tuple[float, float]:
    tail = (1 - confidence) / 2
    return float(np.quantile(values, tail)), float(np.quantile(values, 1 - tail))


def paired_wilcoxon(a, b, *, seed: int, n_resamples: int = 2000, confidence: float = 0.95) -> TestResult:
    """Wilcoxon signed-rank test of A − B over paired units (zero differences dropped, Wilcoxon's way).

    The effect is the rank-biserial r (positive: A larger), its interval a percentile bootstrap
    over units. With no non-zero difference the test is not run: p = 1, r = 0.

    Parameters
    ----------
    a, b : array_like
        The paired measurements, one entry per unit.
    seed : int
        Seed of the bootstrap.
    n_resamples : int, default 2000
        Bootstrap resamples.
    confidence : float, default 0.95
        Level of the interval.

    Returns
    -------
    TestResult
        Signed-rank statistic and p, rank-biserial r with its interval.

    Raises
    ------
    ValueError
        When ``a`` and ``b`` are not paired 1-D arrays without NaN.
    """
    differences = np.asarray(a, dtype=float) - np.asarray(b, dtype=float)
    if differences.ndim != 1 or np.isnan(differences).any():
        raise ValueError("a and b must be paired 1-D arrays without NaN")
    nonzero = differences[differences != 0]
    common = {"test": "wilcoxon", "variant": "signed-rank, zero differences dropped", "confidence": confidence}
    common["effect_name"] = "rank-biserial r (A larger > 0)"
    if nonzero.size == 0:
        return TestResult(
            **common, n=int(differences.size), statistic=math.nan, p_value=1.0, effect_size=0.0, ci_low=0.0, ci_high=0.0
        )
    draws = np.random.default_rng(seed).integers(0, differences.size, size=(n_resamples, differences.size))
    low, high = _quantiles(rank_biserial_rows(differences[draws]), confidence)
    result = scipy_stats.wilcoxon(nonzero, alternative="two-sided")
    return TestResult(
        **common,
        n=int(differences.size),
        statistic=float(result.statistic),
        p_value=float(result.pvalue),
        effect_size=rank_biserial(differences),
        ci_low=low,
        ci_high=high,
    )


def kendalls_w(blocks: np.ndarray) -> float:
    """Kendall's coefficient of concordance of ``blocks`` (n blocks × k treatments).

    From Friedman's statistic: W = chi² / (n (k − 1)), 0 (no agreement) to 1 (every block orders
    the treatments alike).

    Parameters
    ----------
    blocks : numpy.ndarray
        n blocks × k treatments.

    Returns
    -------
    float
        W in [0, 1].
    """
    n, k = blocks.shape
    if np.all(blocks == blocks[:, :1]):
        return 0.0
    return float(scipy_stats.friedmanchisquare(*blocks.T).statistic / (n * (k - 1)))


def kendalls_w_rows(resampled: np.ndarray) -> np.ndarray:
    """:func:`kendalls_w` of every (n × k) slice of ``resampled`` (B × n × k).

    One vectorised call of scipy's Friedman test: the same arithmetic, so the same values bit for
    bit.

    Parameters
    ----------
    resampled : numpy.ndarray
        B resamples of n blocks × k treatments.

    Returns
    -------
    numpy.ndarray
        W of each resample.
    """
    _, n, k = resampled.shape
    constant = np.all(resampled == resampled[:, :, :1], axis=(1, 2))
    with np.errstate(invalid="ignore", divide="ignore"):
        statistic = scipy_stats.friedmanchisquare(*np.moveaxis(resampled, 2, 0), axis=-1).statistic
    return np.where(constant, 0.0, statistic / (n * (k - 1)))


def friedman(blocks, *, seed: int, n_resamples: int = 2000, confidence: float = 0.95) -> TestResult:
    """Friedman's test that k treatments measured in the same n blocks differ (``blocks``: n × k).

    The effect is Kendall's W with a percentile bootstrap interval over blocks.

    Parameters
    ----------
    blocks : array_like
        n blocks × k treatments (n at least 2, k at least 3), without NaN.
    seed : int
        Seed of the bootstrap.
    n_resamples : int, default 2000
        Bootstrap resamples.
    confidence : float, default 0.95
        Level of the interval.

    Returns
    -------
    TestResult
        Friedman's chi-square and p, Kendall's W with its interval.

    Raises
    ------
    ValueError
        For fewer than 2 blocks or 3 treatments, or a NaN.
    """
    blocks = np.asarray(blocks, dtype=float)
    if blocks.ndim != 2 or blocks.shape[1] < 3 or blocks.shape[0] < 2 or np.isnan(blocks).any():
        raise ValueError("Friedman's test needs at least 2 blocks of at least 3 treatments, without NaN")
    n, k = blocks.shape
    common = {"test": "friedman", "variant": f"{k} treatments, chi-square approximation", "confidence": confidence}
    common["effect_name"] = "Kendall's W"
    if np.all(blocks == blocks[:, :1]):
        return TestResult(**common, n=n, statistic=0.0, p_value=1.0, effect_size=0.0, ci_low=0.0, ci_high=0.0)
    result = scipy_stats.friedmanchisquare(*blocks.T)
    draws = np.random.default_rng(seed).integers(0, n, size=(n_resamples, n))
    low, high = _quantiles(kendalls_w_rows(blocks[draws]), confidence)
    return TestResult(
        **common,
        n=n,
        statistic=float(result.statistic),
        p_value=float(result.pvalue),
        effect_size=float(result.statistic / (n * (k - 1))),
        ci_low=low,
        ci_high=high,
    )
