"""Many conditions' feature importances at once: on worker processes when the forests are many.

A forest of small trees is mostly Python per tree (about 1.3 ms of CPU each on the demo's
800 posts), which holds the GIL: two threads per forest barely overlap. Whole conditions on
separate processes do. Every condition's numbers are the same wherever it runs (its seeds are
its own, and a forest is the same for any number of threads), and come back in task order.
Starting a worker costs about a second (numpy, polars and scikit-learn are imported again), so
a pool is used only from :data:`POOL_FROM_TREES` trees in all.

The workers are ``python -m biaswh.compute.recsys.importance_pool`` reading pickled conditions
on stdin, not ``multiprocessing``: its "spawn" reruns the caller's main module (a script calling
``biaswh.run_study`` without a ``__main__`` guard would start itself again), and a fork would copy
DuckDB's and polars' threads mid-flight.
"""

from __future__ import annotations

import os
import pickle
import subprocess
import sys

import polars as pl

from biaswh.compute.common.engine import usable_cpus
from biaswh.compute.recsys.importance import ConditionImportance, condition_importance

# Trees in all (conditions × folds × trees) from which worker processes pay for their start.
POOL_FROM_TREES = 2000


def _one(values: pl.DataFrame, seed: int, options: dict, threads: int) -> ConditionImportance | ValueError:
    try:
        return condition_importance(
            values,
            seed=seed,
            trees=options["trees"],
            folds=options["folds"],
            repeats=options["repeats"],
            threads=threads,
        )
    except ValueError as exc:  # a condition too small to fit: recorded, not raised
        return exc


def condition_importances(
    conditions: list[tuple[pl.DataFrame, int]], options: dict, *, workers: int | None = None
) -> list[ConditionImportance | ValueError]:
    """:func:`condition_importance` of every (values, seed), in order; a condition that cannot be
    fitted gives its ``ValueError`` instead of raising it.

    ``options`` holds ``trees``, ``folds`` and ``repeats``. ``workers`` (default: the available
    cores when the conditions hold at least :data:`POOL_FROM_TREES` trees, else 1) processes
    share the conditions; with one, they run here, each forest built on two threads.
    """
    if workers is None:
        trees = len(conditions) * options["trees"] * options["folds"]
        workers = min(usable_cpus(), len(conditions)) if trees >= POOL_FROM_TREES else 1
    if workers <= 1:
        return [_one(values, seed, options, 2) for values, seed in conditions]
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    command = [sys.executable, "-m", "biaswh.compute.recsys.importance_pool"]
    shares = [list(range(worker, len(conditions), workers)) for worker in range(workers)]
    processes = [
        subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, env=environment) for _ in shares
    ]
    try:
        for process, share in zip(processes, shares, strict=True):
            pickle.dump(([conditions[i] for i in share], options), process.stdin)
            process.stdin.close()
        results: list = [None] * len(conditions)
        for process, share in zip(processes, shares, strict=True):
            try:
                answers = pickle.load(process.stdout)
            except EOFError:
                answers = None
            if process.wait() != 0 or answers is None:
                raise RuntimeError(f"a feature-importance worker failed (exit code {process.returncode})")
            for i, answer in zip(share, answers, strict=True):
                results[i] = answer
    finally:
        for process in processes:
            if process.poll() is None:
                process.kill()
                process.wait()
            process.stdout.close()
    return results


def _serve() -> None:
    """A worker: pickled (conditions, options) on stdin, their results pickled to stdout."""
    conditions, options = pickle.load(sys.stdin.buffer)
    answers = [_one(values, seed, options, 1) for values, seed in conditions]
    pickle.dump(answers, sys.stdout.buffer)
    sys.stdout.flush()


if __name__ == "__main__":
    _serve()
