"""`make demo` after setup: every `studies/demo*.toml` in turn, in one fresh warehouse, in one
`biaswh run` process as `make demo` runs them (Python, the plugins and dbt's parse paid once).

Two runs, each timed against the original study's rank_bm25 loop timed once in the same run
(:func:`benchmarks.common.original_bm25_loop_seconds`), target <= 1.5 x for both:

- **cold caches**, a newcomer's first run: a temporary ``HOME`` and ``XDG_CACHE_HOME`` and none of
  the ``BIASWH_*_CACHE`` variables, so the machine's embedding, BM25, Vega and dbt parse caches all
  start empty. The run goes through :mod:`benchmarks.first_run_probe`, which times what a first
  run pays (encoder load, embedding, vector import, the Vega bundle, dbt's parse) stage by stage.
- **warm caches**: the machine's embedding cache and dbt parse state as a user's would be
  (``BIASWH_EMBEDDING_CACHE``, ``BIASWH_DBT_CACHE``); the JSON says whether a parse state was there.

Each study's stage seconds come from ``raw.runs``; on a miss the JSON lists the stages that cost
most, summed over the studies (and for the cold run, the first-run costs).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.common import original_bm25_loop_seconds, ratio_verdict, study_stages, write_result
from biaswh.warehouse.dbt_build.parse_cache import shared_state_file
from biaswh.warehouse.settings.home import HOME_VARIABLE, REPOSITORY_ROOT

TARGET_RATIO = 1.5
# The machine's caches (warehouse/settings/home.py user_cache_dir): unset, they fall under XDG_CACHE_HOME.
CACHE_VARIABLES = ("BIASWH_EMBEDDING_CACHE", "BIASWH_BM25_CACHE", "BIASWH_VEGA_CACHE", "BIASWH_DBT_CACHE")


def _run(studies: list[Path], folder: Path, env: dict[str, str], command: list[str]) -> tuple[float, dict]:
    """Run the studies in a fresh warehouse under ``folder``; the seconds and each study's stages."""
    home = folder / "warehouse"
    start = time.perf_counter()
    subprocess.run(
        [*command, "run", *map(str, studies)],
        check=True,
        env={**env, HOME_VARIABLE: str(home)},
        stdout=subprocess.DEVNULL,
    )
    total = time.perf_counter() - start
    per_study = {name: {"seconds": s.get("total"), "stage_seconds": s} for name, s in study_stages(home).items()}
    return total, per_study


def _summed(total: float, per_study: dict) -> dict[str, float]:
    summed: dict[str, float] = {}
    for study in per_study.values():
        for stage, seconds in study.get("stage_seconds", {}).items():
            if stage != "total":
                summed[stage] = summed.get(stage, 0.0) + seconds
    # Outside every stage: Python's start-up and imports, and checking every config before the first run.
    summed["process start-up"] = total - sum(s.get("stage_seconds", {}).get("total", 0.0) for s in per_study.values())
    return {k: round(v, 2) for k, v in summed.items()}


def cold_caches(studies: list[Path], loop: float | None) -> dict:
    """The studies with every machine cache empty (a temporary home), first-run costs timed."""
    with tempfile.TemporaryDirectory(prefix="bench-demo-cold-") as folder:
        env = {k: v for k, v in os.environ.items() if k not in CACHE_VARIABLES}
        env |= {"HOME": str(Path(folder) / "home"), "XDG_CACHE_HOME": str(Path(folder) / "cache")}
        probe = Path(folder) / "first_run.json"
        command = [sys.executable, "-m", "benchmarks.first_run_probe", str(probe)]
        total, per_study = _run(studies, Path(folder), env, command)
        costs = json.loads(probe.read_text(encoding="utf-8"))
        caches = sorted(p.name for p in (Path(folder) / "cache" / "biaswh").iterdir())
    summed = _summed(total, per_study)
    first_run = {stage: value["seconds"] for stage, value in costs.items()}
    return {
        "caches_emptied": list(CACHE_VARIABLES) + ["HOME", "XDG_CACHE_HOME"],
        "caches_made_by_the_run": caches,
        "total_seconds": round(total, 2),
        **ratio_verdict(total, loop, TARGET_RATIO, {**summed, **{f"of which {k}": v for k, v in first_run.items()}}),
        "first_run_costs": costs,
        "encoder_loads": costs["encoder load"]["calls"],
        "stage_seconds_summed": summed,
        "per_study": per_study,
    }


def main() -> None:
    studies = sorted((REPOSITORY_ROOT / "studies").glob("demo*.toml"))
    loop = original_bm25_loop_seconds()
    load_before = os.getloadavg()[0]
    cold = cold_caches(studies, loop)
    parse_state_cached = shared_state_file([]).exists()  # a full dbt parse (about 10 s) when not
    with tempfile.TemporaryDirectory(prefix="bench-demo-") as folder:
        total, per_study = _run(studies, Path(folder), dict(os.environ), [sys.executable, "-m", "biaswh.cli"])
    summed = _summed(total, per_study)
    write_result(
        "demo",
        {
            "studies": [s.name for s in studies],
            "dbt_parse_state_cached_before": parse_state_cached,
            "total_seconds": round(total, 2),
            "original_bm25_loop_seconds": round(loop, 2) if loop else None,
            **ratio_verdict(total, loop, TARGET_RATIO, summed),
            "stage_seconds_summed": summed,
            "per_study": per_study,
            "cold_caches": cold,
            "load_average_1min_before": load_before,
            "load_average_1min": os.getloadavg()[0],
        },
    )


if __name__ == "__main__":
    main()
