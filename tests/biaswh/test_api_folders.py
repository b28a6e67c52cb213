"""The Python API's folder, mode and run bookkeeping: which warehouse ``biaswh.open`` names, what
``Warehouse.run`` hands the pipeline and returns, and which run ``latest_run`` picks.

A run here goes through a recording pipeline that adds one row to ``raw.runs`` of a copy of the
demo warehouse (tests/biaswh/test_api.py runs a real study through the same call): what is
checked is what the API does around the pipeline, in milliseconds instead of a study's minutes.
"""

from __future__ import annotations

import os

import duckdb
import pytest

import biaswh
from biaswh.warehouse.errors import UserError
from biaswh.warehouse.settings.home import HOME_VARIABLE
from tests.conftest import DEMO_STUDY, copy_warehouse


@pytest.fixture
def home(demo_warehouse, tmp_path):
    """A private copy of the demo warehouse folder."""
    return copy_warehouse(demo_warehouse.home, tmp_path / "warehouse")


def _add_runs(home, *rows: tuple[str, str, str, str, int]) -> None:
    """Copies of the demo study's run as (run_id, kind, name, status, hours after it started)."""
    con = duckdb.connect(str(home / "warehouse.duckdb"))
    try:
        for run_id, kind, name, status, hours in rows:
            con.execute(
                "insert into raw.runs select * replace (? as run_id, ? as kind, ? as name, ? as status,"
                " started_at + to_hours(?) as started_at) from raw.runs where kind = 'study' and name = 'demo'"
                " order by started_at limit 1",
                [run_id, kind, name, status, hours],
            )
    finally:
        con.close()


class RecordingPipeline:
    """Stands in for :func:`biaswh.pipeline.run_study`: records its call and adds ``new_runs`` study runs."""

    def __init__(self, home, new_runs: int = 1) -> None:
        self.home, self.new_runs, self.calls = home, new_runs, []

    def __call__(self, study_path, **options) -> None:
        self.calls.append((study_path, options, os.environ.get(HOME_VARIABLE)))
        _add_runs(self.home, *[(f"new-{i}", "study", "demo", "succeeded", 5) for i in range(self.new_runs)])


def test_open_without_a_path_opens_the_folder_biaswh_home_names(home, monkeypatch):
    monkeypatch.setenv(HOME_VARIABLE, str(home))
    with biaswh.open() as wh:
        assert wh.home == home.resolve() and wh.read_only is True


def test_open_names_the_folder_of_a_warehouse_file_a_link_or_a_home_relative_path(home, tmp_path, monkeypatch):
    assert biaswh.open(home / "warehouse.duckdb").home == home.resolve()
    link = tmp_path / "linked"
    link.symlink_to(home, target_is_directory=True)
    assert biaswh.open(str(link)).home == home.resolve()
    monkeypatch.setenv("HOME", str(tmp_path))
    assert biaswh.open("~/warehouse").home == home.resolve()
    assert biaswh.open("~/warehouse/warehouse.duckdb").home == home.resolve()


def test_open_refuses_a_file_and_a_missing_warehouse_but_writes_into_a_new_folder(home, tmp_path):
    plain = home / "notes.txt"
    plain.write_text("not a warehouse", encoding="utf-8")
    with pytest.raises(UserError) as refused:
        biaswh.open(plain)
    assert str(refused.value) == (
        f"biaswh.open({str(plain)!r}): not a folder; pass the folder that holds warehouse.duckdb"
    )
    missing = tmp_path / "new"
    with pytest.raises(UserError) as refused:
        biaswh.open(missing)
    assert str(refused.value) == (
        f"no warehouse at {missing / 'warehouse.duckdb'}: run a study first (biaswh.run_study)"
    )
    writer = biaswh.open(missing, read_only=False)
    assert writer.home == missing.resolve() and writer.read_only is False and not missing.exists()
    assert writer.latest_run("demo") is None and writer._study_run_ids() == set()


def test_a_warehouse_names_its_folder_mode_and_site_and_refuses_calls_once_closed(home):
    reader, writer = biaswh.open(home), biaswh.open(home, read_only=False)
    assert repr(reader) == f"<biaswh.Warehouse {home.resolve()} (read-only)>"
    assert repr(writer) == f"<biaswh.Warehouse {home.resolve()} (read-write)>"
    assert reader.site == home.resolve() / "site"
    with reader:
        assert reader.latest_run("demo")
    assert repr(reader) == f"<biaswh.Warehouse {home.resolve()} (read-only, closed)>"
    with pytest.raises(UserError) as refused:
        reader.sql("select 1")
    assert str(refused.value) == f"this Warehouse ({home.resolve()}) is closed: biaswh.open() another one"
    with pytest.raises(UserError) as refused:
        biaswh.open(home).run(DEMO_STUDY)
    assert str(refused.value) == (
        f"this Warehouse ({home.resolve()}) was opened read-only: biaswh.open(read_only=False) runs studies"
    )


def test_a_warehouse_made_directly_is_read_only_unless_asked(home, monkeypatch):
    monkeypatch.setattr("biaswh.pipeline.run_study", RecordingPipeline(home))  # a run that got through would add one
    direct = biaswh.Warehouse(home)
    assert direct.read_only is True and repr(direct) == f"<biaswh.Warehouse {home} (read-only)>"
    with pytest.raises(UserError, match=r"was opened read-only: biaswh.open\(read_only=False\) runs studies"):
        direct.run(DEMO_STUDY)
    assert biaswh.Warehouse(home, read_only=False).run(DEMO_STUDY) == "new-0"


@pytest.mark.parametrize("before", [None, "/somewhere/else"])
def test_run_hands_the_pipeline_every_option_inside_this_warehouse_and_returns_the_new_run(home, monkeypatch, before):
    pipeline = RecordingPipeline(home)
    monkeypatch.setattr("biaswh.pipeline.run_study", pipeline)
    if before is None:
        monkeypatch.delenv(HOME_VARIABLE, raising=False)
    else:
        monkeypatch.setenv(HOME_VARIABLE, before)
    run_id = biaswh.open(home, read_only=False).run(
        DEMO_STUDY, limit=3, compute="ray", ray_address="127.0.0.1:6379", corpus_shards=2, dashboards=False
    )
    assert run_id == "new-0"
    options = {"limit": 3, "compute": "ray", "ray_address": "127.0.0.1:6379", "corpus_shards": 2, "build_site": False}
    assert pipeline.calls == [(str(DEMO_STUDY), options, str(home.resolve()))]
    assert os.environ.get(HOME_VARIABLE) == before  # the setting is put back as it was
    assert biaswh.open(home).sql("select 1 as one")["one"].to_list() == [1]
    assert os.environ.get(HOME_VARIABLE) == before


def test_run_study_runs_into_its_folder_with_the_limit(home, monkeypatch):
    pipeline = RecordingPipeline(home)
    monkeypatch.setattr("biaswh.pipeline.run_study", pipeline)
    assert biaswh.run_study(DEMO_STUDY, limit=2, home=home) == "new-0"
    options = {"limit": 2, "compute": None, "ray_address": None, "corpus_shards": None, "build_site": True}
    assert pipeline.calls == [(str(DEMO_STUDY), options, str(home.resolve()))]


def test_run_study_without_a_folder_runs_into_biaswh_home_and_names_a_bad_one(home, monkeypatch):
    pipeline = RecordingPipeline(home)
    monkeypatch.setattr("biaswh.pipeline.run_study", pipeline)
    monkeypatch.setenv(HOME_VARIABLE, str(home))
    assert biaswh.run_study(DEMO_STUDY) == "new-0"
    assert [call[2] for call in pipeline.calls] == [str(home.resolve())]
    with pytest.raises(biaswh.BadInput) as refused:
        biaswh.run_study(DEMO_STUDY, home=5)
    assert str(refused.value) == "run_study: home must be a path (str or os.PathLike), got 5"


@pytest.mark.parametrize("new_runs", [0, 2])
def test_a_run_that_leaves_not_exactly_one_new_study_run_is_an_error(home, monkeypatch, new_runs):
    monkeypatch.setattr("biaswh.pipeline.run_study", RecordingPipeline(home, new_runs))
    with pytest.raises(RuntimeError) as failed:
        biaswh.open(home, read_only=False).run(DEMO_STUDY)
    assert str(failed.value) == f"expected one new study run in {home.resolve()}, found {new_runs}"


def test_latest_run_is_the_studys_latest_succeeded_study_run_the_first_id_on_a_tie(home):
    demo = biaswh.open(home).latest_run("demo")
    _add_runs(
        home,
        ("b-later", "study", "demo", "succeeded", 2),
        ("a-later", "study", "demo", "succeeded", 2),  # the same start: the first id wins
        ("ingest-latest", "ingest", "demo", "succeeded", 3),
        ("other-latest", "study", "demo_other", "succeeded", 3),
        ("failed-latest", "study", "demo", "failed", 3),
        ("earlier", "study", "demo", "succeeded", -2),
    )
    wh = biaswh.open(home)
    assert demo not in (None, "a-later") and wh.latest_run("demo") == "a-later"
    assert wh.latest_run("demo_other") == "other-latest"
    assert wh._study_run_ids() == {demo, "a-later", "b-later", "other-latest", "failed-latest", "earlier"}
