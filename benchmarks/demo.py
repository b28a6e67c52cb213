"""`make demo` after setup: every `studies/demo*.toml` in turn, in one fresh warehouse, in one
`biaswh run` process as `make demo` runs them (Python, the plugins and dbt's parse paid once).

Target: all seven together <= 1.5 x the original study's rank_bm25 loop timed in the same run
(:func:`benchmarks.common.original_bm25_loop_seconds`). Each study's stage seconds come from
``raw.runs``; on a miss the JSON lists the stages that cost most, summed over the studies.
The machine's embedding cache and dbt parse state are used as a user's would be
(``BIASWH_EMBEDDING_CACHE``, ``BIASWH_DBT_CACHE``); the JSON says whether a parse state was there.
"""

from __future__ import annotations

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


def main() -> None:
    studies = sorted((REPOSITORY_ROOT / "studies").glob("demo*.toml"))
    per_study: dict[str, dict] = {}
    parse_state_cached = shared_state_file([]).exists()  # a full dbt parse (about 10 s) when not
    with tempfile.TemporaryDirectory(prefix="bench-demo-") as folder:
        home = Path(folder) / "warehouse"
        start = time.perf_counter()
        subprocess.run(
            [sys.executable, "-m", "biaswh.cli", "run", *map(str, studies)],
            check=True,
            env={**os.environ, HOME_VARIABLE: str(home)},
            stdout=subprocess.DEVNULL,
        )
        total = time.perf_counter() - start
        for name, stages in study_stages(home).items():
            per_study[name] = {"seconds": stages.get("total"), "stage_seconds": stages}
    loop = original_bm25_loop_seconds()
    summed: dict[str, float] = {}
    for study in per_study.values():
        for stage, seconds in study.get("stage_seconds", {}).items():
            if stage != "total":
                summed[stage] = summed.get(stage, 0.0) + seconds
    # Outside every stage: Python's start-up and imports, and checking every config before the first run.
    summed["process start-up"] = total - sum(s.get("stage_seconds", {}).get("total", 0.0) for s in per_study.values())
    write_result(
        "demo",
        {
            "studies": [s.name for s in studies],
            "dbt_parse_state_cached_before": parse_state_cached,
            "total_seconds": round(total, 2),
            "original_bm25_loop_seconds": round(loop, 2) if loop else None,
            **ratio_verdict(total, loop, TARGET_RATIO, summed),
            "stage_seconds_summed": {k: round(v, 2) for k, v in summed.items()},
            "per_study": per_study,
            "load_average_1min": os.getloadavg()[0],
        },
    )


if __name__ == "__main__":
    main()
