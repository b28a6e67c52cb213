"""Vignette and generation ingest: versions, no duplicates, malformed lines reported, nothing partial."""

from __future__ import annotations

import json
import shutil
from types import SimpleNamespace

import duckdb
import pytest

from biaswh.ingest.silent_bias.load_generations import load_generations
from biaswh.ingest.silent_bias.steps import ingest_generations
from biaswh.ingest.silent_bias.vignettes import load_vignettes
from biaswh.warehouse.errors import InputError, UserError
from tests.conftest import DEMO_DATA, run_here
from tests.fingerprints import raw_fingerprint

DEMO = DEMO_DATA / "silent_bias"


def test_vignettes_load_once_and_reingest_is_a_no_op(con):
    first = load_vignettes(con, DEMO / "vignettes_demo.json", name="demo")
    again = load_vignettes(con, DEMO / "vignettes_demo.json", name="demo")
    assert (first.status, first.rows, again.status) == ("loaded", 10, "unchanged")
    rows = con.execute(
        "select case_id, bias_feature, bias_label, dimension, source_row, length(source_sha256)"
        " from raw.silent_bias_vignettes order by source_row limit 1"
    ).fetchall()
    assert rows == [("demo_001", "black", "muscle strain", "race", 1, 64)]
    assert con.execute("select count(*) from raw.silent_bias_vignettes").fetchone()[0] == 10


def test_model_id_comes_from_the_file_name_or_the_caller(con):
    path = DEMO / "generations" / "demo-model-a.jsonl"
    by_name = load_generations(con, path, vignette_set="demo")
    by_config = load_generations(con, path, vignette_set="demo", model="renamed")
    assert by_name.source_name == "demo/demo-model-a" and by_config.source_name == "demo/renamed"
    models = con.execute(
        "select model, count(*), any_value(model_name_in_file) from raw.silent_bias_generations"
        " group by model order by model"
    ).fetchall()
    assert models == [("demo-model-a", 10, "demo-model-a"), ("renamed", 10, "demo-model-a")]


def test_every_malformed_line_is_reported_by_number_and_nothing_is_loaded(con, tmp_path):
    lines = (DEMO / "generations" / "demo-model-a.jsonl").read_text().splitlines()
    lines[2] = lines[2][:40]  # truncated JSON on line 3
    lines[5] = json.dumps({"id": "demo_006"})  # no output_text on line 6
    lines[7] = lines[0]  # duplicate id on line 8
    bad = tmp_path / "broken-model.jsonl"
    bad.write_text("\n".join(lines) + "\n")
    before = raw_fingerprint(con)
    with pytest.raises(InputError) as caught:
        load_generations(con, bad, vignette_set="demo")
    message = str(caught.value)
    assert str(bad) in message and "3 malformed line(s)" in message
    assert "line 3: malformed JSON" in message and "line 6: field 'output_text'" in message
    assert "line 8: duplicate id 'demo_001' (first on line 1)" in message
    assert raw_fingerprint(con) == before


def test_a_bad_file_in_a_folder_leaves_the_warehouse_unchanged(con, tmp_path):
    folder = tmp_path / "generations"
    shutil.copytree(DEMO / "generations", folder)
    (folder / "zz-broken.jsonl").write_text('{"id": "demo_001", "output_text": "x"}\nnot json\n')
    study = SimpleNamespace(path=tmp_path / "study.toml", resolve=lambda p: p)
    before = raw_fingerprint(con)
    with pytest.raises(InputError, match="line 2: malformed JSON"):
        ingest_generations(con, study, {"path": str(folder), "vignette_set": "demo"})
    assert raw_fingerprint(con) == before
    with pytest.raises(UserError, match="needs vignette_set"):
        ingest_generations(con, study, {"path": str(folder)})


def test_a_changed_generation_file_becomes_a_new_version(con, tmp_path):
    path = tmp_path / "m.jsonl"
    source = (DEMO / "generations" / "demo-model-b.jsonl").read_text()
    path.write_text(source)
    assert load_generations(con, path, vignette_set="demo").version == 1
    assert load_generations(con, path, vignette_set="demo").status == "unchanged"
    path.write_text(source.replace("Meningitis", "Viral meningitis"))
    assert load_generations(con, path, vignette_set="demo").version == 2
    statuses = con.execute(
        "select status, count(*) from raw.silent_bias_generations where source_version = 1"
        " group by status order by status"
    ).fetchall()
    assert statuses == [("error", 1), ("ok", 9)]


def test_vignette_without_dimension_names_row_and_field(con, tmp_path):
    cases = json.loads((DEMO / "vignettes_demo.json").read_text())
    del cases["cases"][3]["metadata"]["dimension"]
    bad = tmp_path / "v.json"
    bad.write_text(json.dumps(cases))
    with pytest.raises(InputError, match=r"row 4, field 'metadata.dimension'"):
        load_vignettes(con, bad)


def test_cli_run_with_a_malformed_generations_file_exits_2_naming_the_lines(tmp_path):
    folder = tmp_path / "generations"
    folder.mkdir()
    good = (DEMO / "generations" / "demo-model-a.jsonl").read_text().splitlines()
    (folder / "model-x.jsonl").write_text("\n".join(good[:4] + ["{oops", *good[4:]]) + "\n")
    study = tmp_path / "study.toml"
    study.write_text(
        '[study]\nname = "bad"\nseed = 1\nanalysis = ["silent_bias"]\n\n'
        f'[[ingest]]\nsource = "silent_bias_vignettes"\npath = "{DEMO / "vignettes_demo.json"}"\nname = "demo"\n\n'
        f'[[ingest]]\nsource = "silent_bias_generations"\npath = "{folder}"\nvignette_set = "demo"\n'
    )
    home = tmp_path / "home"
    completed = run_here("run", str(study), home=home, check=False)
    assert completed.returncode == 2
    assert "model-x.jsonl: 1 malformed line(s), nothing loaded: line 5: malformed JSON" in completed.stderr
    con = duckdb.connect(str(home / "warehouse.duckdb"), read_only=True)
    try:
        assert con.execute("select count(*) from raw.silent_bias_generations").fetchone()[0] == 0
        assert con.execute("select status from raw.runs where kind = 'study'").fetchone()[0] == "failed"
    finally:
        con.close()
