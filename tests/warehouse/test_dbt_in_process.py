"""dbt runs inside biaswh's process: parsed once, reused across builds and warehouses, the file released."""

from __future__ import annotations

import subprocess

import pytest

from warehouse import dbt_invoke
from warehouse.connection import connect
from warehouse.dbt_runner import run_dbt_build
from warehouse.settings import HOME_VARIABLE

pytestmark = pytest.mark.dbt
SELECTION = [
    "--select",
    "stg_squad__questions",
    "--indirect-selection",
    "cautious",
    "--exclude-resource-type",
    "unit_test",
]


def test_two_warehouses_two_builds_one_parse_no_child_process(tmp_path, monkeypatch):
    real_popen = subprocess.Popen

    def no_dbt_child(command, *args, **kwargs):
        program = str(command[0] if isinstance(command, (list, tuple)) else command)
        assert not program.endswith("dbt"), f"dbt was started as a child process: {command!r}"
        return real_popen(command, *args, **kwargs)  # dbt itself asks `uname -p` for its metadata

    monkeypatch.setattr(subprocess, "Popen", no_dbt_child)
    parses = []
    real_invoke = dbt_invoke.invoke_dbt

    def counting(args, **options):
        parses.append(args[0]) if args[0] == "parse" else None
        return real_invoke(args, **options)

    monkeypatch.setenv(HOME_VARIABLE, str(tmp_path / "parsed"))
    dbt_invoke.parsed_project()  # this process's parse (free when an earlier test parsed)
    monkeypatch.setattr(dbt_invoke, "invoke_dbt", counting)
    for name in ("first", "second"):
        home = tmp_path / name
        monkeypatch.setenv(HOME_VARIABLE, str(home))
        connect().close()
        for _ in range(2):
            summary = run_dbt_build(SELECTION, label=name)
            assert summary.counts.get("success") == 1 and not summary.failures
        con = connect()  # dbt's connection is closed: ours (another configuration) opens the file
        assert con.execute("select count(*) from staging.stg_squad__questions").fetchone() == (0,)
        con.close()
        log = (home / "dbt" / "logs" / "dbt-build.log").read_text(encoding="utf-8")
        assert log.count("OK created sql view model staging.stg_squad__questions") == 2
        assert (home / "dbt" / "target" / "manifest.json").exists()
    assert parses == []  # every build reused the parsed project
