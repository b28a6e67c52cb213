"""Hostile options and configs that were accepted, or refused only after work: now refused first.

Each case runs the command in-process against a copy of the demo warehouse and asserts the
behaviour: exit code 2, exactly one stderr line, no traceback, and the warehouse file's sha256
and every raw table's rows unchanged. The cases: a malformed Ray address (Ray retried it for
minutes), a ``ray://`` address without Ray's client extra, ``[compute] workers`` beyond this
machine's CPUs (10,000 took 5.2 GB), ``--target spark`` without the spark extra (41 s of work,
then dbt's adapter error), ``analyze --run`` of another study's run (it said "analysed"), an
unknown key in a WEAT word-set file, a metric named twice in ``[weat.metrics] names`` (it failed
at a data test) and ``[verdicts] alpha = 0``.
"""

from __future__ import annotations

import hashlib
import importlib.util
import time

import pytest

from biaswh.compute.common.engine import usable_cpus
from tests.conftest import DEMO_STUDY, REPOSITORY_ROOT, copy_warehouse, run_here
from tests.fingerprints import warehouse_raw_fingerprint

WEAT_STUDY = REPOSITORY_ROOT / "studies" / "demo_weat.toml"


@pytest.fixture(scope="module")
def home(demo_warehouse, tmp_path_factory):
    return copy_warehouse(demo_warehouse.home, tmp_path_factory.mktemp("late-checks") / "warehouse")


def _state(home, monkeypatch) -> tuple[str, dict]:
    monkeypatch.setenv("BIASWH_HOME", str(home))
    return hashlib.sha256((home / "warehouse.duckdb").read_bytes()).hexdigest(), warehouse_raw_fingerprint()


def _refused(home, monkeypatch, *argv: str, names=()) -> str:
    """Run ``biaswh ARGV``; assert a one-line refusal (exit 2) that changed nothing; return the line."""
    before = _state(home, monkeypatch)
    started = time.monotonic()
    completed = run_here(*argv, home=home, check=False)
    seconds = time.monotonic() - started
    error = completed.stderr
    assert completed.returncode == 2, error + completed.stdout
    assert error.count("\n") == 1 and "Traceback" not in error and ": error: " in error, error
    for name in names:
        assert name in error, error
    assert seconds < 30, f"refused only after {seconds:.0f} s"
    assert _state(home, monkeypatch) == before
    return error


def _study(tmp_path, base, extra: str, replace=("", "")):
    """A copy of a shipped study config (its data paths made absolute) with ``extra`` appended."""
    text = base.read_text(encoding="utf-8").replace("demo_data/", f"{base.parent}/demo_data/")
    path = tmp_path / base.name
    path.write_text(text.replace(*replace) + extra, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    "address",
    ["head:10001:7", "ray:/head:10001", "http://head:10001", "ray://head", "ray://head:99999", "head 10001", ""],
)
def test_a_malformed_ray_address_is_refused_at_once(home, monkeypatch, address):
    _refused(home, monkeypatch, "run", str(DEMO_STUDY), "--ray-address", address, names=["--ray-address"])


def test_a_malformed_ray_address_in_the_config_names_its_key(home, monkeypatch, tmp_path):
    study = _study(tmp_path, DEMO_STUDY, '\n[compute]\nengine = "ray"\naddress = "head:port"\n')
    _refused(home, monkeypatch, "run", str(study), names=["[compute] address", "not a Ray address"])


def test_a_ray_client_address_without_the_client_extra_says_what_to_install(home, monkeypatch):
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "grpc" else real(name, *a))
    line = _refused(home, monkeypatch, "run", str(DEMO_STUDY), "--ray-address", "ray://head:10001")
    assert "client extra" in line and "make ray" in line


def test_the_client_extra_is_installed_by_the_ray_lock():
    lock = (REPOSITORY_ROOT / "requirements-ray.lock").read_text(encoding="utf-8")
    assert "ray[client,data]==" in lock and "grpcio==" in lock
    assert importlib.util.find_spec("grpc") is not None, "make ray installs grpcio (ray[client])"


def test_workers_beyond_this_machines_cpus_are_refused_naming_the_key(home, monkeypatch, tmp_path):
    study = _study(tmp_path, DEMO_STUDY, f'\n[compute]\nengine = "ray"\nworkers = {usable_cpus() + 1}\n')
    _refused(home, monkeypatch, "run", str(study), names=["[compute] workers", f"{usable_cpus()} CPUs"])
    many = _study(tmp_path, DEMO_STUDY, '\n[compute]\nengine = "ray"\nworkers = 10000\n')
    _refused(home, monkeypatch, "run", str(many), names=["[compute] workers: 10000"])


def test_spark_without_its_extra_is_refused_before_any_work(home, monkeypatch):
    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name == "pyspark" else real(name, *a))
    line = _refused(home, monkeypatch, "run", str(DEMO_STUDY), "--target", "spark")
    assert "spark extra (pyspark missing)" in line and "make spark" in line


def test_analyze_refuses_a_run_of_another_study(home, monkeypatch):
    from biaswh.warehouse.database.connection import open_warehouse

    monkeypatch.setenv("BIASWH_HOME", str(home))
    with open_warehouse(read_only=True) as con:
        demo_run = con.execute("select run_id from raw.runs where kind = 'study' and name = 'demo'").fetchone()[0]
        ingest_run = con.execute("select run_id from raw.runs where kind = 'ingest_squad'").fetchone()[0]
    line = _refused(home, monkeypatch, "analyze", str(WEAT_STUDY), "--run", demo_run)
    assert f"--run {demo_run}: that is a run of study 'demo', not of study 'demo_weat'" in line
    _refused(home, monkeypatch, "analyze", str(DEMO_STUDY), "--run", ingest_run, names=["a run of ingest_squad"])
    _refused(home, monkeypatch, "analyze", str(DEMO_STUDY), "--run", "no-such-run", names=["no run with that id"])


def test_an_unknown_key_in_a_weat_word_set_file_names_file_key_and_row(home, monkeypatch, tmp_path):
    definition = tmp_path / "tests.yaml"
    definition.write_text(
        "name: typo\ntests:\n  career:\n    target_x: {label: m, words: [John]}\n"
        "    target_y: {label: f, words: [Amy]}\n    attribute_a: {label: c, words: [office]}\n"
        "    attribute_b:\n      label: h\n      words: [home]\n      exluded: []\n",
        encoding="utf-8",
    )
    _refused(
        home,
        monkeypatch,
        "ingest",
        "weat-tests",
        str(definition),
        names=[str(definition), "row 10", "tests.career.attribute_b.exluded", "did you mean 'excluded'"],
    )


def test_an_unknown_top_level_key_is_refused_too(home, monkeypatch, tmp_path):
    definition = tmp_path / "tests.yaml"
    builtin = (REPOSITORY_ROOT / "studies" / "demo_data" / "weat" / "demo_user_tests.yaml").read_text("utf-8")
    definition.write_text("referense: a typo\n" + builtin, encoding="utf-8")
    _refused(home, monkeypatch, "ingest", "weat-tests", str(definition), names=["row 1", "field 'referense'"])


def test_a_metric_named_twice_is_refused_at_config_load(home, monkeypatch, tmp_path):
    study = _study(
        tmp_path, WEAT_STUDY, "", replace=('names = ["rnd", "rnsb"', 'names = ["rnd", "rnd", "rnsb", "rnsb"')
    )
    _refused(home, monkeypatch, "run", str(study), names=["[weat.metrics]", "'rnd', 'rnsb' listed twice"])


@pytest.mark.parametrize("alpha", ["0", "0.0", "-0.05", "nan"])
def test_a_verdict_alpha_of_zero_is_refused_at_config_load(home, monkeypatch, tmp_path, alpha):
    study = _study(tmp_path, DEMO_STUDY, f"\n[verdicts]\nalpha = {alpha}\n")
    _refused(home, monkeypatch, "run", str(study), names=["[verdicts] alpha"])
