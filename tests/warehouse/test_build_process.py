"""A study run's dbt builds run in a child that loaded dbt meanwhile; outside a study run, in this process."""

from __future__ import annotations

import json

import pytest

from biaswh.warehouse.database.connection import connect
from biaswh.warehouse.dbt_build import build_process
from biaswh.warehouse.dbt_build.macro_templates import CALLED_MACROS_FILE
from biaswh.warehouse.dbt_build.runner import run_dbt_build
from biaswh.warehouse.errors import UserError
from biaswh.warehouse.settings.home import HOME_VARIABLE
from tests.warehouse.test_dbt_in_process import SELECTION

pytestmark = pytest.mark.dbt


def test_no_study_run_child_when_dbt_runs_as_a_process_per_build(monkeypatch):
    monkeypatch.setenv(build_process.SUBPROCESS_VARIABLE, "1")
    with build_process.serving():
        assert not build_process.start()


def test_builds_inside_a_study_run_go_to_one_child_kept_for_the_next_run(tmp_path, monkeypatch):
    assert not build_process.start()  # outside a study run: no child
    events = []
    with build_process.serving():
        assert build_process.start()
        child = build_process._CHILD[0].process
        with build_process.serving():  # a study inside `biaswh run a.toml b.toml` keeps the same child
            assert build_process.start() and build_process._CHILD[0].process is child
        assert child.poll() is None
        for name in ("first", "second"):  # the child builds the warehouse BIASWH_HOME names at the call
            home = tmp_path / name
            monkeypatch.setenv(HOME_VARIABLE, str(home))
            connect().close()
            served = build_process.build(
                SELECTION, env={HOME_VARIABLE: str(home)}, log_file=tmp_path / f"{name}.log", console=False,
                callbacks=[lambda event: events.append((event.info.name, event.data.total))],
            )  # fmt: skip
            success, rows, error, nodes = served
            assert success and error == "" and nodes == {}
            assert [status for _, status, _ in rows].count("success") == 1
            assert "OK created sql view model staging.stg_squad__questions" in (tmp_path / f"{name}.log").read_text()
            con = connect()  # the child let go of the file
            assert con.execute("select count(*) from staging.stg_squad__questions").fetchone() == (0,)
            con.close()
            # the macros the build called, for the next child to compile while it waits (macro_templates.py)
            called = json.loads((home / "dbt" / "target" / CALLED_MACROS_FILE).read_text())
            assert "macro.dbt.materialization_view_default" in called
        assert child.poll() is None  # one child for every build of the run
    assert (
        child.poll() is None
        and build_process.build(SELECTION, env={}, log_file=tmp_path / "y.log", console=False) is None
    )
    with build_process.serving():  # the next run of this process finds it loaded
        assert build_process.start() and build_process._CHILD[0].process is child
    build_process.stop()  # as at this process's exit
    assert child.wait(timeout=10) == 0 and not build_process._CHILD
    assert ("LogStartLine", len(rows)) in events and [e for e in events if e[0] == "NodeFinished"]
    assert build_process.build(SELECTION, env={}, log_file=tmp_path / "x.log", console=False) is None


def test_a_failed_build_in_the_child_names_its_node_and_the_child_builds_again(tmp_path, monkeypatch):
    monkeypatch.setenv(HOME_VARIABLE, str(tmp_path / "warehouse"))
    con = connect()
    con.execute("drop table raw.squad_questions")  # the staging view has nothing to read
    con.close()
    with build_process.serving():
        assert build_process.start()
        with pytest.raises(UserError, match=r"dbt build \(study\) failed: model\.bias_warehouse\.stg_squad__questions"):
            run_dbt_build(SELECTION, label="study")
        connect().close()  # puts the raw table back
        summary = run_dbt_build(SELECTION, label="study")
        assert summary.counts.get("success") == 1 and not summary.failures
        assert build_process._CHILD and build_process._CHILD[0].process.poll() is None


def test_a_child_started_before_the_lock_serves_only_once_a_study_run_releases_it(tmp_path, monkeypatch):
    monkeypatch.setenv(HOME_VARIABLE, str(tmp_path / "home"))
    build_process.stop()  # an earlier test's child
    build_process.prestart()  # `biaswh run`, before its arguments and lock: the child only loads dbt
    child = build_process._CHILD[0]
    assert not child.released
    with build_process.serving():
        assert build_process.build(SELECTION, env={}, log_file=tmp_path / "x.log", console=False) is None
        assert build_process.start() and build_process._CHILD[0] is child and child.released  # the same process
        connect().close()
        success, rows, error, _ = build_process.build(
            SELECTION, env={HOME_VARIABLE: str(tmp_path / "home")}, log_file=tmp_path / "y.log", console=False
        )
        assert success and error == "" and [status for _, status, _ in rows].count("success") == 1
    build_process.stop()
    assert child.process.wait(timeout=10) == 0 and not build_process._CHILD


def test_a_child_never_released_is_killed_at_exit():
    build_process.stop()
    build_process.prestart()
    child = build_process._CHILD[0].process
    build_process.stop()  # a refused run's exit: the child held nothing
    assert child.wait(timeout=10) != 0 and not build_process._CHILD
