"""A run costs its own work, not the warehouse's history: the 20th demo dialect run against the 1st.

Runs `studies/demo.toml` 20 times in one fresh warehouse (each run adds its rows to the
run-keyed marts) and compares the wall time of the 20th run with the 1st and 2nd (the 1st
also builds the corpus and embeds the demo texts once; the 2nd is the first warm run).
Target: run 20 <= 1.0 x run 1; on a miss the JSON compares their stages.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchmarks.common import write_result
from biaswh.warehouse.settings.home import HOME_VARIABLE, REPOSITORY_ROOT

STUDY = REPOSITORY_ROOT / "studies" / "demo.toml"
RUNS = 20
TARGET_RATIO = 1.0


def study_stages_in_order(home: Path):
    """Each study run's stage seconds, oldest first (all runs share one config name)."""
    import json

    import duckdb

    with duckdb.connect(str(home / "warehouse.duckdb"), read_only=True) as con:
        rows = con.execute("select stage_seconds from raw.runs where kind = 'study' order by started_at").fetchall()
    return ({k: round(v, 2) for k, v in json.loads(stages or "{}").items()} for (stages,) in rows)


def _run(home: Path) -> float:
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "biaswh.cli", "run", str(STUDY)],
        check=True,
        env={**os.environ, HOME_VARIABLE: str(home)},
        stdout=subprocess.DEVNULL,
    )
    return time.perf_counter() - start


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="bench-history-") as folder:
        home = Path(folder) / "warehouse"
        seconds = [_run(home) for _ in range(RUNS)]
        stages = list(study_stages_in_order(home))
    ratio = seconds[-1] / seconds[0]
    growth = {k: round(v - stages[0].get(k, 0.0), 2) for k, v in stages[-1].items()}
    write_result(
        "run_history",
        {
            "study": str(STUDY.relative_to(REPOSITORY_ROOT)),
            "runs": RUNS,
            "seconds_per_run": [round(s, 2) for s in seconds],
            "first_run_seconds": round(seconds[0], 2),
            "second_run_seconds": round(seconds[1], 2),
            "last_run_seconds": round(seconds[-1], 2),
            "last_over_first": round(ratio, 3),
            "last_over_second": round(seconds[-1] / seconds[1], 3),
            "target_last_over_first": TARGET_RATIO,
            "meets_target": ratio <= TARGET_RATIO,
            "first_run_stage_seconds": stages[0],
            "last_run_stage_seconds": stages[-1],
            "last_minus_first_by_stage": dict(sorted(growth.items(), key=lambda kv: -kv[1])),
            "load_average_1min": os.getloadavg()[0],
        },
    )


if __name__ == "__main__":
    main()
