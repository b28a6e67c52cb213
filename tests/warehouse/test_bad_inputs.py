"""Bad input ends in one line naming the file, row and field (or the setting), exit code 2, nothing written.

One table of cases (tests/warehouse/bad_input_cases.py), each run in-process through
``biaswh.cli.main`` against a copy of a warehouse that holds the demo SQuAD (train split). Every
case asserts: exit code 2, exactly one stderr line containing what it must name, no traceback,
and the raw tables unchanged.
"""

from __future__ import annotations

import hashlib
import shutil
from pathlib import Path

import pytest

from biaswh.warehouse.database.connection import connect
from biaswh.warehouse.settings.home import HOME_VARIABLE
from tests.conftest import DEMO_DATA, assert_refused, run_main, seeded_squad_warehouse
from tests.fingerprints import warehouse_raw_fingerprint
from tests.warehouse.bad_input_cases import CASES, study_text


@pytest.fixture(scope="module")
def seeded_warehouse(tmp_path_factory) -> Path:
    """A warehouse file holding the demo SQuAD (train), built once and copied by each case."""
    return seeded_squad_warehouse(tmp_path_factory.mktemp("seeded"))


@pytest.mark.parametrize("name", CASES)
def test_bad_input_is_one_line_exit_2_and_changes_nothing(name, seeded_warehouse, tmp_path, monkeypatch, capsys):
    case = CASES[name]
    home, folder = tmp_path / "warehouse", tmp_path / "inputs"
    folder.mkdir()
    fill = lambda text: text.format(tmp=folder, home=home)  # noqa: E731
    files = {"study.toml": study_text("seed = 1\n"), **case.files}
    for file_name, content in files.items():
        path = folder / file_name
        path.write_bytes(content) if isinstance(content, bytes) else path.write_text(content, encoding="utf-8")
    monkeypatch.setenv(HOME_VARIABLE, str(home))
    if case.home_is_a_file:
        home.write_text("not a folder\n", encoding="utf-8")
    else:
        home.mkdir()
        if case.corrupt_warehouse:
            (home / "warehouse.duckdb").write_text("a\nx\n", encoding="utf-8")  # what `copy ... to` once left
        else:
            shutil.copy(seeded_warehouse, home / "warehouse.duckdb")
    watched = home if case.home_is_a_file else home / "warehouse.duckdb"
    file_before = hashlib.sha256(watched.read_bytes()).hexdigest()
    raw_before = None if case.home_is_a_file or case.corrupt_warehouse else warehouse_raw_fingerprint()

    code, _, error = run_main([fill(a) for a in case.argv], capsys)

    assert_refused(code, error, [fill(expected) for expected in case.names])
    if raw_before is None:
        assert hashlib.sha256(watched.read_bytes()).hexdigest() == file_before
        return
    raw_after = warehouse_raw_fingerprint()
    if case.records_a_failed_study_run:
        con = connect(read_only=True)
        study_runs = con.execute("select kind, status from raw.runs where kind = 'study'").fetchall()
        con.close()
        assert study_runs == [("study", "failed")]
        for registry in ("runs", "run_parameters"):  # the failed run and the parameters it was started with
            raw_after.pop(registry), raw_before.pop(registry)
    assert raw_after == raw_before


def test_a_csv_with_a_utf8_byte_order_mark_loads_like_one_without(seeded_warehouse, tmp_path, monkeypatch, capsys):
    home = tmp_path / "warehouse"
    home.mkdir()
    shutil.copy(seeded_warehouse, home / "warehouse.duckdb")
    monkeypatch.setenv(HOME_VARIABLE, str(home))
    pairs = tmp_path / "pairs_bom.csv"
    pairs.write_bytes(b"\xef\xbb\xbf" + (DEMO_DATA / "dialect_pairs_demo.csv").read_bytes())
    squad = tmp_path / "squad_bom.json"
    squad.write_bytes(b"\xef\xbb\xbf" + (DEMO_DATA / "squad_demo.json").read_bytes())
    code, out, error = run_main(["ingest", "squad", str(squad), "--split", "validation"], capsys)
    assert (code, error) == (0, "") and "loaded 64 rows" in out
    code, out, error = run_main(["ingest", "pairs", str(pairs)], capsys)
    assert (code, error) == (0, "") and "loaded 84 rows" in out
    con = connect(read_only=True)
    columns = con.execute("select distinct json_keys(attributes) from raw.query_pair_variants").fetchall()
    first = con.execute(
        "select pair_id, query_text from raw.query_pair_variants where source_row = 1 and variant = 'sae'"
    ).fetchone()
    con.close()
    assert columns == [(["conversion_method", "source"],)]  # no "\ufeffid" column left over
    assert first == ("0", "Who grows food in a community garden?")
