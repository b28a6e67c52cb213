"""``python -m benchmarks [NAME ...]`` (``make bench``): run the benchmarks, all by default."""

from __future__ import annotations

import importlib
import sys

BENCHMARKS = {
    "bm25_speed": "benchmarks.bm25_speed",
    "bm25_peers": "benchmarks.bm25_peers",
    "dense_speed": "benchmarks.dense_speed",
    "weat_exact_permutation": "benchmarks.weat_exact_permutation",
    "dialect_study": "benchmarks.dialect_study",
    "demo": "benchmarks.demo",
    "run_history": "benchmarks.run_history",
    "scale": "benchmarks.scale",
    "dialect_scale": "benchmarks.dialect_scale",
    "ray_scale": "benchmarks.ray_scale",
    "cli_latency": "benchmarks.cli_latency",
}


def main(argv: list[str]) -> int:
    names = argv or list(BENCHMARKS)
    unknown = [n for n in names if n not in BENCHMARKS]
    if unknown:
        print(f"unknown benchmark(s): {', '.join(unknown)}; choose from {', '.join(BENCHMARKS)}", file=sys.stderr)
        return 2
    for name in names:
        print(f"== {name}", flush=True)
        importlib.import_module(BENCHMARKS[name]).main()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
