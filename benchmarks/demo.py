"""`make demo` after setup: every `studies/demo*.toml` in turn, in one fresh warehouse.

Target: <= 2 minutes on 2 cores. Each study's stage seconds come from raw.runs.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import duckdb

from benchmarks.common import write_result
from warehouse.settings import HOME_VARIABLE, REPOSITORY_ROOT

TARGET_SECONDS = 120.0


def main() -> None:
    studies = sorted((REPOSITORY_ROOT / "studies").glob("demo*.toml"))
    per_study = {}
    with tempfile.TemporaryDirectory(prefix="bench-demo-") as folder:
        home = Path(folder) / "warehouse"
        start = time.perf_counter()
        for study in studies:
            begin = time.perf_counter()
            subprocess.run(
                [sys.executable, "-m", "biaswh.cli", "run", str(study)],
                check=True,
                env={**os.environ, HOME_VARIABLE: str(home)},
                stdout=subprocess.DEVNULL,
            )
            per_study[study.name] = {"seconds": round(time.perf_counter() - begin, 2)}
        total = time.perf_counter() - start
        with duckdb.connect(str(home / "warehouse.duckdb"), read_only=True) as con:
            for name, stages in con.execute(
                "select parameters->>'$.config', stage_seconds from raw.runs where kind = 'study'"
            ).fetchall():
                per_study[Path(name).name]["stage_seconds"] = {k: round(v, 2) for k, v in json.loads(stages).items()}
    write_result(
        "demo",
        {
            "studies": [s.name for s in studies],
            "total_seconds": round(total, 2),
            "per_study": per_study,
            "target_seconds": TARGET_SECONDS,
            "meets_target": total <= TARGET_SECONDS,
            "load_average_1min": os.getloadavg()[0],
        },
    )


if __name__ == "__main__":
    main()
