"""What the docs say about each study: its kind of data, what it reads, its time and headline
finding. The kind and inputs come from ``studies/*.toml``; the time and finding from a run,
recorded in ``docs/study_results.json`` by ``python -m docs.generate record``.
"""

from __future__ import annotations

import json
import tomllib
from pathlib import Path

from biaswh.warehouse.settings.home import REPOSITORY_ROOT

STUDIES = REPOSITORY_ROOT / "studies"
RESULTS = REPOSITORY_ROOT / "docs" / "study_results.json"
SHARED = "../../shared/data/"
_KINDS = ("demo", "synthetic", "real")


def study_files() -> list[Path]:
    """Every study config, by name (``audit_*.toml`` are audit configs: ``biaswh audit``, not a study)."""
    return sorted(path for path in STUDIES.glob("*.toml") if not path.name.startswith("audit_"))


def audit_files() -> list[Path]:
    """Every audit config (``biaswh audit``), by name: the table leads with them."""
    return sorted(STUDIES.glob("audit_*.toml"))


def _config(path: Path) -> dict:
    return tomllib.loads(path.read_text(encoding="utf-8"))


def study_name(path: Path) -> str:
    """The study's ``[study] name`` (an audit's ``[audit] name``): the name its runs carry."""
    config = _config(path)
    return config["audit"]["name"] if "audit" in config else config["study"]["name"]


def study_kind(path: Path) -> str:
    """``demo``, ``synthetic`` or ``real``: the config's ``[study] data`` where it says, else what
    its inputs are (a file under ../shared/data is real; a description saying synthetic is)."""
    config = _config(path)
    declared = config["study"].get("data")
    if declared in _KINDS:
        return declared
    paths = [str(step.get("path", "")) for step in config.get("ingest", [])]
    if any(p.startswith(SHARED) for p in paths):
        return "real"
    return "synthetic" if "synthetic" in config["study"].get("description", "").lower() else "demo"


def study_inputs(path: Path) -> list[str]:
    """What the study reads, one entry per source folder or named input, in config order."""
    seen: list[str] = []
    for step in _config(path).get("ingest", []):
        where = str(step.get("path", ""))
        if where.startswith(SHARED):
            shown = "../shared/data/" + where.removeprefix(SHARED).split("/")[0]
        elif where.startswith(("hf:", "builtin:")):
            shown = where
        elif where == "generated":
            shown = "generated from " + str(step.get("squad_split", "the study's questions"))
        else:
            shown = "studies/" + where.split("/")[0]
        if shown not in seen:
            seen.append(shown)
    return seen


def audit_inputs(path: Path) -> tuple[str, list[str]]:
    """An audit's kind of data and what its studies read: the demo data, or the real data its
    subjects' kinds use (``biaswh/common/audit_data.py``), and what its subjects name."""
    from biaswh.common import audit_data

    config = _config(path)
    kind = config["audit"].get("data", "demo")
    subjects = config.get("subjects", [])
    kinds = {subject["kind"] for subject in subjects}
    real_files = {
        "retriever": [audit_data.SQUAD_TRAIN, audit_data.DIALECT_PAIRS, audit_data.MINILM_VECTORS],
        "llm": [audit_data.VIGNETTES],
    }
    named = [SHARED + f for k in sorted(kinds) for f in real_files.get(k, [])] if kind == "real" else []
    named += ["builtin:caliskan2017"] if "embedding" in kinds else []
    named += [str(s.get("path") or s.get("generations") or "") for s in subjects]
    shown = ["studies/demo_data"] if kind != "real" else []
    for where in named:
        if where.startswith(("hf:", "builtin:")):
            entry = where
        elif where.startswith(SHARED):
            entry = "../shared/data/" + where.removeprefix(SHARED).split("/")[0]
        else:
            continue  # the demo data's own files
        if entry not in shown:
            shown.append(entry)
    return kind, shown


def load_results() -> dict[str, dict]:
    """The recorded runs: study name -> {kind, seconds, verdicts}."""
    return json.loads(RESULTS.read_text(encoding="utf-8")) if RESULTS.exists() else {}


def read_run_facts(home: Path, names: list[str]) -> dict[str, dict]:
    """The latest succeeded run of each study in ``names`` in the warehouse at ``home``: its wall
    seconds and the verdict sentences of its findings cards."""
    import biaswh

    warehouse = biaswh.open(home)
    findings = warehouse.findings()
    runs = warehouse.sql(
        "select name, kind, arg_max(run_id, started_at) as run_id,"
        " arg_max(epoch(finished_at) - epoch(started_at), started_at) as seconds from raw.runs"
        " where kind in ('study', 'audit') and status = 'succeeded' group by name, kind"
    )
    latest = {row["name"]: row for row in runs.iter_rows(named=True)}
    facts = {}
    for name in names:
        if name not in latest:
            raise ValueError(f"{home}: no succeeded run of the study or audit {name}")
        if latest[name]["kind"] == "audit":
            verdicts = [_audit_headline(home, latest[name]["run_id"])]
        else:
            verdicts = [row["verdict"] for row in findings.frame.iter_rows(named=True) if row["study"] == name]
        facts[name] = {"seconds": round(latest[name]["seconds"]), "verdicts": verdicts}
    return facts


def _audit_headline(home: Path, audit_run: str) -> str:
    import duckdb

    from biaswh.common.audit_summary import audit_headline

    with duckdb.connect(str(home / "warehouse.duckdb"), read_only=True) as con:
        return audit_headline(con, audit_run)


def record(home: Path, names: list[str]) -> None:
    """Store the facts of the studies ``names`` from the warehouse at ``home`` in the results file."""
    results = load_results()
    results.update(read_run_facts(home, names))
    RESULTS.write_text(json.dumps(dict(sorted(results.items())), indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


def benchmark_seconds() -> dict[str, float]:
    """Each demo study's wall seconds in ``make bench``'s timed ``make demo`` (a quiet machine)."""
    path = REPOSITORY_ROOT / "benchmarks" / "results" / "demo.json"
    if not path.exists():
        return {}
    per_study = json.loads(path.read_text(encoding="utf-8")).get("per_study", {})
    return {file_name: entry["seconds"] for file_name, entry in per_study.items()}


def _duration(seconds: float) -> str:
    return f"{round(seconds)} s" if seconds < 120 else f"{round(seconds / 60)} min"


NOT_RECORDED = "no recorded run yet (run it, then `python -m docs.generate record`)"


def _verdict(name: str, results: dict) -> str:
    if name not in results:
        return NOT_RECORDED
    return " ".join(results[name]["verdicts"]) or "no finding card"


def studies_table() -> str:
    """The README's table: one row per study config.

    A study's time is its run in ``make bench``'s timed demo where it has one (measured on a
    quiet machine), else the recorded run's.
    """
    results = load_results()
    timed = benchmark_seconds()
    lines = ["| study | data | needs | time (2 cores) | headline finding |", "|---|---|---|---|---|"]
    for path in audit_files():
        name = study_name(path)
        kind, inputs = audit_inputs(path)
        seconds = results.get(name, {}).get("seconds")
        time = _duration(seconds) if seconds is not None else "–"
        cell = ("Audit (`biaswh audit`): " + _verdict(name, results)).replace("|", "\\|")
        needs = ", ".join(f"`{i}`" for i in inputs)
        lines.append(f"| `{path.name}` | {kind} | {needs} | {time} | {cell} |")
    for path in study_files():
        name = study_name(path)
        inputs = ", ".join(f"`{i}`" for i in study_inputs(path))
        seconds = timed.get(path.name, results.get(name, {}).get("seconds"))
        time = _duration(seconds) if seconds is not None else "–"
        cell = _verdict(name, results).replace("|", "\\|")
        lines.append(f"| `{path.name}` | {study_kind(path)} | {inputs} | {time} | {cell} |")
    return "\n".join(lines)


def findings(names: list[str]) -> str:
    """The recorded headline finding of each study in ``names``, as a list."""
    results = load_results()
    return "\n".join(f"- **`{name}`**: {_verdict(name, results)}" for name in names)
