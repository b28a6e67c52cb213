"""The scale benchmark's study run on both compute engines: local, and ``--compute ray`` (local Ray).

For each size N (default 5,000, 20,000 and 100,000 query variants, the last 50 M result rows;
``BIASWH_RAY_SCALE_SIZES`` picks some, ``BIASWH_RAY_SCALE_ENGINES`` one engine, measured into
the existing JSON beside the others) a fresh warehouse runs the study :mod:`benchmarks.scale`
generates (synthetic pairs, five BM25 settings, depth 100) with ``biaswh run``, once per engine.
The Ray run starts its own local Ray instance with ``[compute] workers = 2`` (this machine's cores).

Recorded per N and engine (``benchmarks/results/ray_scale.json``): the command's wall time,
the jobs stage (``raw.runs.stage_seconds``; on Ray it includes ``ray.init``), the summed
search seconds of the workers (``raw.retrieval_runs.seconds``) and from it the per-worker
throughput in queries a second per BM25 setting, and peak resident memory sampled every
0.2 s from ``/proc``: the driver (the ``biaswh`` process), the largest single Ray worker, Ray's
own services (raylet, GCS, ...), and the whole process tree (``dbt`` included).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import duckdb

from benchmarks.common import RESULTS_DIR, write_result
from benchmarks.scale import BM25_SETTINGS, PAGE_SIZE, write_pairs, write_study
from biaswh.warehouse.runs.registry import code_version
from biaswh.warehouse.settings.home import HOME_VARIABLE

SIZES = (5_000, 20_000, 100_000)
WORKERS = 2


def _process_tree(root: int) -> list[int]:
    """``root`` and every descendant, from /proc."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", "rb") as stat:
                    parent = int(stat.read().rsplit(b")", 1)[1].split()[1])
                children.setdefault(parent, []).append(int(entry))
            except (OSError, IndexError):
                continue
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo.extend(children.get(pid, []))
    return found


def _role(pid: int, root: int) -> str:
    """driver, worker (a Ray worker process: its title starts ``ray::``), ray (Ray's services) or other (dbt)."""
    if pid == root:
        return "driver"
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
            command = cmdline.read().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return "other"
    if command.startswith("ray::") or "default_worker.py" in command:
        return "worker"
    # Ray's services run from its installed package (raylet and gcs_server are binaries in it).
    return "ray" if "site-packages/ray/" in command else "other"


def _shared_pages(pid: int) -> int:
    """Bytes of shared memory ``pid`` has touched (``RssShmem``): on Ray, pages of the node's object
    store (a /dev/shm file the raylet owns, counted once per node), mapped when objects are read."""
    try:
        with open(f"/proc/{pid}/status", "rb") as status:
            for line in status:
                if line.startswith(b"RssShmem:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def _sample(root: int, peaks: dict[str, int]) -> dict[str, int]:
    """Fold one /proc sample of the tree under ``root`` into ``peaks`` (bytes); return the sample
    (``driver_shared``: the driver's object-store pages, part of ``driver``)."""
    by_role = {"driver": 0, "driver_shared": _shared_pages(root), "ray": 0, "tree": 0}
    for pid in _process_tree(root):
        try:
            with open(f"/proc/{pid}/statm", "rb") as statm:
                rss = int(statm.read().split()[1]) * PAGE_SIZE
        except OSError:
            continue
        role = _role(pid, root)
        by_role["tree"] += rss
        if role == "worker":
            peaks["largest_worker"] = max(peaks.get("largest_worker", 0), rss)
        elif role in by_role:
            by_role[role] += rss
    for role, rss in by_role.items():
        peaks[role] = max(peaks.get(role, 0), rss)
    return by_role


def _in_jobs_stage(log: Path) -> bool:
    """Whether the study's output so far says its compute jobs are running: the sources build
    has printed its line and the jobs stage has not printed its time yet."""
    try:
        printed = log.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    return "dbt build (sources)" in printed and "] jobs:" not in printed


def _run(command: list[str], env: dict, log: Path) -> tuple[float, dict[str, int]]:
    """Run ``command``; its wall time and the peak memory of each role in its process tree.

    ``jobs_driver`` is the driver's peak while the compute jobs run: the driver also runs dbt
    in-process, whose DuckDB work (up to its memory limit) would otherwise hide what a job holds.
    ``jobs_driver_own`` leaves out the pages of Ray's object store the driver mapped reading
    results (``jobs_driver_shared``): that memory is the node's store, bounded by its
    ``object_store_memory`` and shared by every process on the node, not the driver's.
    """
    peaks: dict[str, int] = {}
    start = time.perf_counter()
    with log.open("w") as out:
        process = subprocess.Popen(command, env=env, stdout=out, stderr=subprocess.STDOUT)
        done = threading.Event()

        def sample() -> None:
            while not done.is_set():
                sampled = _sample(process.pid, peaks)
                if _in_jobs_stage(log):
                    own = sampled["driver"] - sampled["driver_shared"]
                    peaks["jobs_driver"] = max(peaks.get("jobs_driver", 0), sampled["driver"])
                    peaks["jobs_driver_own"] = max(peaks.get("jobs_driver_own", 0), own)
                    peaks["jobs_driver_shared"] = max(peaks.get("jobs_driver_shared", 0), sampled["driver_shared"])
                done.wait(0.2)

        sampler = threading.Thread(target=sample, daemon=True)
        sampler.start()
        code = process.wait()
        done.set()
        sampler.join()
    if code != 0:
        raise RuntimeError(f"{' '.join(command)} failed with exit code {code}; see {log}:\n" + log.read_text()[-3000:])
    return time.perf_counter() - start, peaks


def measure(n_variants: int, engine: str) -> dict:
    """One fresh warehouse, one study run on ``engine``; its times, memory and throughput."""
    with tempfile.TemporaryDirectory(prefix=f"bench-ray-scale-{n_variants}-") as folder:
        folder = Path(folder)
        pairs = folder / "synthetic_pairs.jsonl"
        write_pairs(pairs, n_variants)
        study = folder / "scale.toml"
        write_study(study, pairs, n_variants)
        if engine == "ray":
            study.write_text(study.read_text() + f'\n[compute]\nengine = "ray"\nworkers = {WORKERS}\n')
        home = folder / "warehouse"
        # Unbuffered: the sampler reads the stage lines as they are printed.
        env = {**os.environ, HOME_VARIABLE: str(home), "RAY_DISABLE_USAGE_STATS": "1", "PYTHONUNBUFFERED": "1"}
        seconds, peaks = _run([sys.executable, "-m", "biaswh.cli", "run", str(study)], env, folder / "run.log")
        with duckdb.connect(str(home / "warehouse.duckdb"), read_only=True) as con:
            stages = json.loads(con.execute("select stage_seconds from raw.runs where kind = 'study'").fetchone()[0])
            search_seconds, n_queries = con.execute(
                "select sum(seconds), max(n_queries) from raw.retrieval_runs"
            ).fetchone()
            result_rows = con.execute("select count(*) from raw.retrieval_results").fetchone()[0]
    gib = lambda n: round(n / 1024**3, 3)  # noqa: E731
    return {
        "engine": engine,
        "workers": WORKERS if engine == "ray" else 1,
        "n_variants": n_variants,
        "result_rows": result_rows,
        "wall_seconds": round(seconds, 1),
        "jobs_seconds": round(stages["jobs"], 1),
        "search_seconds": round(search_seconds, 1),
        "queries_per_second_per_worker": round(n_queries * len(BM25_SETTINGS) / search_seconds, 1),
        "peak_driver_rss_gib": gib(peaks.get("driver", 0)),
        "peak_driver_rss_in_jobs_gib": gib(peaks.get("jobs_driver", 0)),
        "peak_driver_own_rss_in_jobs_gib": gib(peaks.get("jobs_driver_own", 0)),
        "peak_driver_object_store_pages_in_jobs_gib": gib(peaks.get("jobs_driver_shared", 0)),
        "peak_largest_worker_rss_gib": gib(peaks.get("largest_worker", 0)),
        "peak_ray_services_rss_gib": gib(peaks.get("ray", 0)),
        "peak_tree_rss_gib": gib(peaks.get("tree", 0)),
        "load_average_1min": round(os.getloadavg()[0], 2),
    }


def _earlier_runs() -> dict:
    """The runs of the results file, for sizes measured in an earlier run of this benchmark."""
    try:
        return json.loads((RESULTS_DIR / "ray_scale.json").read_text(encoding="utf-8"))["runs"]
    except (OSError, ValueError, KeyError):
        return {}


def main() -> None:
    chosen = os.environ.get("BIASWH_RAY_SCALE_SIZES")
    sizes = tuple(int(s) for s in chosen.split(",")) if chosen else SIZES
    chosen_engines = os.environ.get("BIASWH_RAY_SCALE_ENGINES")
    engines = chosen_engines.split(",") if chosen_engines else ["local", "ray"]
    # A chosen subset (of sizes or engines) replaces its own runs' figures and keeps the others
    # (each run says when and at which commit it was measured).
    measured = _earlier_runs() if chosen or chosen_engines else {}
    for n_variants in sizes:
        for engine in engines:
            print(f"-- {n_variants:,} query variants, {engine}", flush=True)
            run = {**measure(n_variants, engine), "code_version": code_version()}
            run["measured_on"] = time.strftime("%Y-%m-%d")
            measured[f"{n_variants}-{engine}"] = run
            print(json.dumps(run), flush=True)
    write_result(
        "ray_scale",
        {
            "data": "synthetic pairs: SQuAD v1.1 train questions and seeded rewrites (labelled synthetic)",
            "retrievers": list(BM25_SETTINGS),
            "runs": measured,
        },
    )


if __name__ == "__main__":
    main()
