"""`biaswh run A.toml B.toml ...`: several studies in one process (what `make demo` does).

The studies that run in turn are the session's demo site (:func:`tests.conftest.demo_site`
runs six of them so); here, the check made before the first run starts.
"""

from __future__ import annotations

import shutil

import pytest

from tests.conftest import DEMO_STUDY, assert_refused, run_main


def test_a_mistake_in_a_later_config_is_refused_before_any_run_starts(warehouse_home, tmp_path, capsys):
    bad = tmp_path / "bad.toml"
    (tmp_path / "demo_data").symlink_to(DEMO_STUDY.parent / "demo_data")  # its paths resolve: one mistake
    shutil.copy(DEMO_STUDY, bad)
    text = bad.read_text(encoding="utf-8")
    bad.write_text(text.replace("[study]", "[study]\nwrong_key = 1", 1), encoding="utf-8")
    code, out, error = run_main(["run", str(DEMO_STUDY), str(bad)], capsys)
    assert_refused(code, error, [str(bad), "wrong_key"])
    assert "== study" not in out
    # Nothing ran: the first (valid) study did not start, so the warehouse holds no run.
    assert not (warehouse_home / "warehouse.duckdb").exists() or _runs(warehouse_home) == 0


def _runs(home) -> int:
    import duckdb

    connection = duckdb.connect(str(home / "warehouse.duckdb"), read_only=True)
    try:
        return connection.execute("select count(*) from raw.runs").fetchone()[0]
    finally:
        connection.close()


def test_the_site_is_drawn_once_by_the_last_study_or_after_the_one_that_failed(monkeypatch, tmp_path, warehouse_home):
    from biaswh import pipeline

    studies, drawn = [], []

    def run_study(path, *, build_site=True, **options):
        studies.append((path, build_site))
        if path == "fails":
            raise RuntimeError("the study failed")
        return tmp_path / "index.html" if build_site else None

    monkeypatch.setattr(pipeline, "run_study", run_study)
    monkeypatch.setattr(pipeline, "load_study", lambda *args, **kwargs: None)
    monkeypatch.setattr(pipeline, "start_dbt_process", lambda: True)
    monkeypatch.setattr(pipeline, "dashboards", lambda: drawn.append("after the failure"))
    assert pipeline.run_studies(["a", "b", "c"]) == tmp_path / "index.html"
    assert studies == [("a", False), ("b", False), ("c", True)] and drawn == []
    studies.clear()
    with pytest.raises(RuntimeError, match="the study failed"):
        pipeline.run_studies(["a", "fails", "c"])
    assert studies == [("a", False), ("fails", False)] and drawn == ["after the failure"]


def test_the_dbt_process_starts_before_the_configs_are_checked_under_the_command_lock(monkeypatch, warehouse_home):
    from biaswh import pipeline
    from biaswh.warehouse.database import command_lock

    events = []
    monkeypatch.setattr(pipeline, "start_dbt_process", lambda: events.append(("dbt", command_lock.held())) or True)
    monkeypatch.setattr(pipeline, "load_study", lambda path, **kwargs: events.append((path, command_lock.held())))
    monkeypatch.setattr(
        pipeline, "run_study", lambda path, **kwargs: events.append((f"run {path}", command_lock.held()))
    )
    pipeline.run_studies(["a", "b"], build_site=False)
    assert events == [("dbt", True), ("a", True), ("b", True), ("run a", True), ("run b", True)]
    events.clear()
    pipeline.run_studies(["a", "b"], build_site=False, target="spark")  # Spark builds: no dbt process here
    assert events == [("a", True), ("b", True), ("run a", True), ("run b", True)]
