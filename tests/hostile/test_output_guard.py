"""Hostile outputs: every option that names a file a command writes, aimed at the warehouse.

The options are read from the argparse tree (any option whose dest says it is an output), so a
new output option that this module does not try fails :func:`test_every_output_option_is_guarded`.
Each is given the warehouse file as a plain path, a hard link, a symbolic link and a relative
spelling; the command must exit 2 with one line and leave the warehouse's sha256, its folder's
entries and every table's row count as they were. Lock and history files that are links, a
``recsys_experiment`` name that leaves its folder, and the Python API's parameters are tried too.
"""

from __future__ import annotations

import argparse
import inspect
import os
import re
import shutil

import pytest

import biaswh
from biaswh.cli import _parser
from biaswh.output_options import OUTPUT_OPTIONS
from tests.conftest import DEMO_DATA, REPOSITORY_ROOT, assert_refused, run_main, seeded_squad_warehouse
from tests.hostile.warehouse_state import warehouse_state

# A dest that names something written: out, report, pairs_out, *_output, site, history, lock.
OUTPUT_DEST = re.compile(r"(^|_)(out|output|report|site|history|lock)($|_)")
ENDPOINT = ["--model", "m", "--base-url", "http://127.0.0.1:9/v1"]  # nothing listens: no request gets far
CACHE = ["--out", "out/conversions.jsonl"]
SQUAD = str(DEMO_DATA / "squad_demo.json")
PAIRS = str(DEMO_DATA / "dialect_pairs_demo.csv")
VIGNETTES = str(DEMO_DATA / "silent_bias" / "vignettes_demo.json")
# One command line per output option, {target} where the output goes; every other input is real,
# so without the guard each command would get as far as writing its output.
COMMAND_LINES = {
    "sql --out": ["sql", "select 1 as a", "--csv", "--out", "{target}"],
    "trec export OUT": ["trec", "export", "{target}", "--run", "r", "--retriever", "bm25"],
    "variants rules --out": ["variants", "rules", "--squad", SQUAD, "--sample", "3", "--out", "{target}"],
    "variants rules --report": ["variants", "rules", "--pairs", PAIRS, "--show", "0", "--report", "{target}"],
    "variants llm --out": ["variants", "llm", "--squad", SQUAD, "--sample", "2", *ENDPOINT, "--out", "{target}"],
    "variants llm --pairs-out": ["variants", "llm", "--squad", SQUAD, *ENDPOINT, *CACHE, "--pairs-out", "{target}"],
    "variants llm --report": ["variants", "llm", "--squad", SQUAD, *ENDPOINT, *CACHE, "--report", "{target}"],
    "generate --out": ["generate", VIGNETTES, *ENDPOINT, "--limit", "1", "--out", "{target}"],
    "dashboards --out": ["dashboards", "--out", "{target}"],
    "export --out": ["export", "any_study", "--format", "csv", "--out", "{target}"],
}
SPELLINGS = {
    "plain path": lambda home, here: str(home / "warehouse.duckdb"),
    "hard link": lambda home, here: _linked(os.link, home, here / "hard.duckdb"),
    "symbolic link": lambda home, here: _linked(os.symlink, home, here / "soft.duckdb"),
    "relative spelling": lambda home, here: "out/../warehouse/./warehouse.duckdb",
}


def _linked(make, home, link) -> str:
    make(home / "warehouse.duckdb", link)
    return str(link)


def _leaf_parsers(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()):
    """(subcommand path, parser) for every parser in the tree, the leaves' options with them."""
    yield path, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, child in action.choices.items():
                yield from _leaf_parsers(child, (*path, name))


def _parser_outputs() -> set[tuple[tuple[str, ...], str]]:
    return {
        (path, action.dest)
        for path, parser in _leaf_parsers(_parser())
        for action in parser._actions
        if OUTPUT_DEST.search(action.dest) and not isinstance(action, argparse._SubParsersAction)
    }


def test_every_output_option_is_guarded():
    in_parser = _parser_outputs()  # building the parser registers every command's output options
    guarded = {(option.command, option.dest) for option in OUTPUT_OPTIONS}
    assert in_parser == guarded  # a new output option registers beside its command (register_output_options)
    assert {option.label for option in OUTPUT_OPTIONS} == set(COMMAND_LINES)  # and tried below


@pytest.fixture(scope="module")
def template(tmp_path_factory):
    return seeded_squad_warehouse(tmp_path_factory.mktemp("template"))


@pytest.fixture
def home(template, warehouse_home, tmp_path, monkeypatch):
    """A copy of the template in ``tmp_path/warehouse``; ``tmp_path`` is the current folder."""
    warehouse_home.mkdir()
    shutil.copy(template, warehouse_home / "warehouse.duckdb")
    (tmp_path / "out").mkdir()
    monkeypatch.chdir(tmp_path)
    return warehouse_home


@pytest.mark.parametrize("spelling", SPELLINGS)
@pytest.mark.parametrize("label", COMMAND_LINES)
def test_an_output_aimed_at_the_warehouse_is_refused(label, spelling, home, tmp_path, capsys):
    target = SPELLINGS[spelling](home, tmp_path)
    before = warehouse_state(home)
    code, _, error = run_main([arg.format(target=target) for arg in COMMAND_LINES[label]], capsys)
    assert_refused(code, error, [target, label])  # named as typed, before any work (the option's own check)
    assert warehouse_state(home) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["warehouse", "out", *_made(spelling)])
    assert list((tmp_path / "out").iterdir()) == []


def _made(spelling: str) -> list[str]:
    return {"hard link": ["hard.duckdb"], "symbolic link": ["soft.duckdb"]}.get(spelling, [])


@pytest.mark.parametrize("target", ["warehouse", "warehouse/lancedb", "link-home"])
def test_a_site_folder_in_the_warehouse_folder_is_refused(target, home, tmp_path, capsys):
    (tmp_path / "link-home").symlink_to(home, target_is_directory=True)
    before = warehouse_state(home)
    code, _, error = run_main(["dashboards", "--out", target], capsys)
    assert_refused(code, error, [target])
    assert warehouse_state(home) == before


@pytest.mark.parametrize("link", ["symbolic link to the warehouse", "hard link to the warehouse", "dangling link"])
def test_a_lock_file_that_is_a_link_stops_a_writing_command(link, home, tmp_path, capsys):
    lock = home / "warehouse.lock"
    {
        "symbolic link to the warehouse": lambda: lock.symlink_to(home / "warehouse.duckdb"),
        "hard link to the warehouse": lambda: os.link(home / "warehouse.duckdb", lock),
        "dangling link": lambda: lock.symlink_to(tmp_path / "elsewhere"),
    }[link]()
    before = warehouse_state(home)
    code, _, error = run_main(["ingest", "squad", SQUAD, "--name", "again"], capsys)
    assert_refused(code, error, [str(lock)])
    assert warehouse_state(home) == before
    assert not (tmp_path / "elsewhere").exists()


@pytest.mark.parametrize("link", ["symbolic", "hard"])
def test_the_shell_history_is_never_written_through_a_link(link, home, tmp_path, monkeypatch):
    from biaswh import sql_shell
    from biaswh.warehouse.database.output_files import OutputRefused

    pytest.importorskip("readline")
    monkeypatch.setenv("HOME", str(tmp_path))
    history = tmp_path / sql_shell.HISTORY_FILE
    (os.symlink if link == "symbolic" else os.link)(home / "warehouse.duckdb", history)
    before = warehouse_state(home)
    with pytest.raises(OutputRefused, match=re.escape(str(history))):
        sql_shell._history()
    sql_shell._save_history(history)  # a link made during a session: the history is not kept
    assert warehouse_state(home) == before


def test_the_shell_history_is_replaced_whole(home, tmp_path, monkeypatch):
    from biaswh import sql_shell

    readline = pytest.importorskip("readline")
    monkeypatch.setenv("HOME", str(tmp_path))
    history = sql_shell._history()
    readline.add_history("select 42;")
    sql_shell._save_history(history)
    assert "select 42;" in history.read_text(encoding="utf-8") and history.stat().st_mode & 0o777 == 0o600
    assert [p.name for p in tmp_path.iterdir() if p.name.endswith(".partial")] == []


@pytest.mark.parametrize("name", ["../../escape", "a/b", "..", "/tmp/abs"])
def test_a_recsys_experiment_name_leaving_its_folder_is_refused_before_any_work(name, tmp_path, warehouse_home, capsys):
    from biaswh.pipeline import load_plugins

    load_plugins()
    (tmp_path / "demo_data").symlink_to(DEMO_DATA)
    study = tmp_path / "demo.toml"
    experiment = (
        '[[ingest]]\nsource = "recsys_experiment"\npath = "demo_data/squad_demo.json"\n'
        'features_path = "demo_data/squad_demo.json"\nbase_url = "http://127.0.0.1:9/v1"\nmodels = ["m"]\n'
        f"name = {name!r}\n".replace("'", '"')
    )
    study.write_text((REPOSITORY_ROOT / "studies" / "demo.toml").read_text(encoding="utf-8") + experiment, "utf-8")
    code, _, error = run_main(["run", str(study)], capsys)
    assert code == 2 and "would leave its folder" in error and "Traceback" not in error, error
    assert not (warehouse_home / "warehouse.duckdb").exists()  # refused by the config check, before any work


def test_the_api_has_no_output_parameter_left_unguarded():
    """The API writes files only through a study run (its site, guarded as ``dashboards``): a
    parameter that names an output would need a case here."""
    callables = [biaswh.open, biaswh.run_study] + [
        member for name, member in inspect.getmembers(biaswh.Warehouse, inspect.isfunction) if not name.startswith("_")
    ]
    outputs = [
        f"{function.__qualname__}({name})"
        for function in callables
        for name in inspect.signature(function).parameters
        if OUTPUT_DEST.search(name)
    ]
    assert outputs == []
