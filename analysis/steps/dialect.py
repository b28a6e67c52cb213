"""Analysis step ``dialect_tests``: the dialect study's statistics into ``analysis.dialect_*``."""

from __future__ import annotations

from analysis.dialect import paired_tests, power_rows, rank_tests
from analysis.store import replace_run_rows
from warehouse.errors import UserError
from warehouse.study import register_analysis
from warehouse.transactions import transaction


@register_analysis("dialect_tests")
def dialect_tests(con, study, run_id: str) -> None:
    """Write ``analysis.dialect_paired_tests``, ``dialect_rank_tests`` and ``dialect_power`` for ``run_id``."""
    settings = study.settings.get("dialect", {})
    n_resamples = int(settings.get("bootstrap_resamples", 2000))
    tests = paired_tests(con, run_id, seed=study.seed, n_resamples=n_resamples)
    if tests.height == 0:
        raise UserError(
            f"run {run_id} has no dialect retrieval results: does the study run the `retrieval` job "
            "over a pair set with two or more variants?"
        )
    ranks = rank_tests(con, run_id, seed=study.seed)
    power = power_rows(tests)
    with transaction(con):
        counts = {
            name: replace_run_rows(con, name, run_id, frame)
            for name, frame in (
                ("dialect_paired_tests", tests),
                ("dialect_rank_tests", ranks),
                ("dialect_power", power),
            )
        }
    print("  " + ", ".join(f"analysis.{name}: {n:,} rows" for name, n in counts.items()), flush=True)
