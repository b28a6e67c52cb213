"""Benchmark: exact enumeration of the 12,870 partitions of an 8 + 8 WEAT (target: at most 50 ms).

Run: ``python -m benchmarks.weat_exact_permutation``. Prints the median and best of repeated
runs, and the randomised path (100,000 distinct partitions of a 25 + 25 test) for scale.
"""

from __future__ import annotations

import statistics
import time

import numpy as np

from biaswh.compute.weat.permutation import weat_permutation_test

TARGET_SECONDS = 0.050


def _timings(s_x, s_y, repeats: int) -> list[float]:
    timings = []
    for _ in range(repeats):
        start = time.perf_counter()
        weat_permutation_test(s_x, s_y, seed=1)
        timings.append(time.perf_counter() - start)
    return timings


def main() -> None:
    rng = np.random.default_rng(20261122)
    exact = _timings(rng.normal(0.2, 1, 8), rng.normal(0, 1, 8), repeats=50)
    randomised = _timings(rng.normal(0.2, 1, 25), rng.normal(0, 1, 25), repeats=3)
    verdict = "OK" if statistics.median(exact) <= TARGET_SECONDS else "TOO SLOW"
    print(
        f"exact 8+8 (12,870 partitions): median {statistics.median(exact) * 1000:.1f} ms,"
        f" best {min(exact) * 1000:.1f} ms, target {TARGET_SECONDS * 1000:.0f} ms: {verdict}"
    )
    print(f"randomised 25+25 (100,000 distinct partitions): median {statistics.median(randomised):.2f} s")


if __name__ == "__main__":
    main()
