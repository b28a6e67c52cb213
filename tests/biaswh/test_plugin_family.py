"""A study family from a plugin folder runs end to end without a file of the project changing.

``tests/fixtures/toy_family/`` holds the family ``score_gap`` in the project's layout: an ingest
source, raw DDL, a job starting one sub-run per score set, a parameter with its range and its
default (a dbt var, in its own ``dbt_project/macros/score_gap/``), a config table, dbt staging
and mart models, an analysis step (Welch's t-test), a page and a command (``biaswh ingest
score-gap-scores``, with an output option). ``biaswh run`` on its study, with ``BIASWH_PLUGINS``
naming the folder, loads, builds, analyses and draws it in a scratch warehouse; nothing is
copied into the project.
"""

from __future__ import annotations

import csv
import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest
from scipy import stats

from biaswh.warehouse.settings.home import HOME_VARIABLE
from biaswh.warehouse.settings.plugin_roots import PLUGINS_VARIABLE
from tests.conftest import REPOSITORY_ROOT

pytestmark = [pytest.mark.dbt]
PLUGIN = REPOSITORY_ROOT / "tests" / "fixtures" / "toy_family"
STUDY = PLUGIN / "studies" / "score_gap.toml"
PROJECT_FOLDERS = ("warehouse", "stats", "ingest", "compute", "analysis", "dashboards", "biaswh", "dbt_project")


def _digest(folder: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file() and "__pycache__" not in p.parts):
        digest.update(str(path.relative_to(folder)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def _project_status() -> str:
    """``git status`` of the project's folders (tracked changes and new files)."""
    return subprocess.run(
        ["git", "status", "--porcelain", "--untracked-files=all", "--", *PROJECT_FOLDERS],
        cwd=REPOSITORY_ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout


def _biaswh(home: Path, *args: str, plugins: str = str(PLUGIN)) -> subprocess.CompletedProcess:
    env = {**os.environ, HOME_VARIABLE: str(home), PLUGINS_VARIABLE: plugins}
    return subprocess.run(
        [sys.executable, "-m", "biaswh.cli", *args], env=env, cwd=REPOSITORY_ROOT, capture_output=True, text=True
    )


@pytest.fixture(scope="module")
def toy_home(tmp_path_factory) -> Path:
    home = tmp_path_factory.mktemp("toy-family")
    plugin_before, project_before = _digest(PLUGIN), _project_status()
    completed = _biaswh(home, "run", str(STUDY))
    assert completed.returncode == 0, completed.stdout[-3000:] + completed.stderr[-3000:]
    assert _digest(PLUGIN) == plugin_before, "the build wrote into the plugin folder"
    assert _project_status() == project_before, "the run changed a file of the project"
    return home


def _query(home: Path, sql: str, params=()) -> list[tuple]:
    with duckdb.connect(str(home / "warehouse.duckdb"), read_only=True) as con:
        return con.execute(sql, list(params)).fetchall()


def _study_run(home: Path) -> str:
    [(run_id,)] = _query(home, "select run_id from raw.runs where kind = 'study' and status = 'succeeded'")
    return run_id


def test_the_plugin_studys_welch_test_matches_scipy_on_its_csv(toy_home):
    with (PLUGIN / "studies" / "data" / "exam_scores.csv").open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(handle))
    first = [float(r["score"]) for r in sorted(rows, key=lambda r: r["item_id"]) if r["group_label"] == "a"]
    second = [float(r["score"]) for r in sorted(rows, key=lambda r: r["item_id"]) if r["group_label"] == "b"]
    expected = stats.ttest_ind(first, second, equal_var=False)
    low, high = expected.confidence_interval(0.9)  # the study's [score_gap] confidence
    [(gap, t_statistic, p_value, ci_low, ci_high)] = _query(
        toy_home, "select mean_gap, t_statistic, p_value, ci_low, ci_high from analysis.score_gap_tests"
    )
    assert gap == pytest.approx(sum(first) / len(first) - sum(second) / len(second))
    assert (t_statistic, p_value) == pytest.approx((expected.statistic, expected.pvalue))
    assert (ci_low, ci_high) == pytest.approx((low, high))
    assert p_value < 0.05  # the fixture's groups are 10 points apart


def test_the_plugin_parameter_is_recorded_and_read_by_its_mart(toy_home):
    run_id = _study_run(toy_home)
    assert _query(
        toy_home, "select value from raw.run_parameters where run_id = ? and name = 'score_gap_min_scores'", [run_id]
    ) == [("3",)]
    groups = _query(toy_home, "select group_label, n_scores from marts.fct_score_gap_groups where run_id = ?", [run_id])
    assert sorted(groups) == [("a", 6), ("b", 6)]


def test_the_plugin_parameters_default_reaches_dbt_and_python_from_its_folder(toy_home):
    """The family's own macro declares the default: run_parameter() in its compiled mart falls back
    to it (2), Python resolves it for a study that sets none, the project names it nowhere."""
    compiled = toy_home / "dbt" / "target" / "compiled" / "bias_warehouse" / "plugin_models" / "0"
    sql = (compiled / "marts" / "score_gap" / "fct_score_gap_groups.sql").read_text(encoding="utf-8")
    assert "name = 'score_gap_min_scores'" in sql and "cast('2' as json)" in sql
    script = (
        "from biaswh.plugins import load_plugins\nfrom biaswh.warehouse.runs.parameters import resolve_parameters\n"
    )
    script += "load_plugins()\nprint(resolve_parameters({})['score_gap_min_scores'])"
    env = {**os.environ, PLUGINS_VARIABLE: str(PLUGIN)}
    completed = subprocess.run(
        [sys.executable, "-c", script], env=env, cwd=REPOSITORY_ROOT, capture_output=True, text=True
    )
    assert completed.returncode == 0 and completed.stdout.split() == ["2"], completed.stderr[-3000:]
    found = subprocess.run(
        ["git", "grep", "-l", "score_gap", "--", *PROJECT_FOLDERS], cwd=REPOSITORY_ROOT, capture_output=True
    )
    assert found.returncode == 1, "a file of the project names the plugin family"


def test_the_plugin_sub_run_belongs_to_its_study_run_and_leaves_with_it(toy_home, tmp_path):
    run_id = _study_run(toy_home)
    [(sub_run, status)] = _query(
        toy_home,
        "select passes.run_id, runs.status from raw.score_gap_passes as passes"
        " join raw.runs using (run_id) where passes.study_run_id = ?",
        [run_id],
    )
    assert status == "succeeded"
    # withdraw on a copy: the study run and its sub-run leave the marts, counted per table
    copy = tmp_path / "copy"
    copy.mkdir()
    (copy / "warehouse.duckdb").write_bytes((toy_home / "warehouse.duckdb").read_bytes())
    script = (
        "import json, sys\n"
        "from biaswh.withdrawal import built_run_ids, withdraw_run\n"
        "from biaswh.warehouse.database.connection import open_warehouse\n"
        "with open_warehouse() as con:\n"
        "    print(json.dumps([built_run_ids(con, sys.argv[1]), withdraw_run(con, sys.argv[1])]))\n"
    )
    env = {**os.environ, HOME_VARIABLE: str(copy), PLUGINS_VARIABLE: str(PLUGIN)}
    completed = subprocess.run(
        [sys.executable, "-c", script, run_id], env=env, cwd=REPOSITORY_ROOT, capture_output=True, text=True
    )
    assert completed.returncode == 0, completed.stderr[-3000:]
    built, deleted = json.loads(completed.stdout.strip().splitlines()[-1])
    assert built == [run_id, sub_run]
    assert deleted["fct_score_gap_groups"] == 2


def test_the_plugin_page_joins_the_site_and_the_project_has_no_trace_of_it(toy_home):
    study_page = (toy_home / "site" / "studies" / "score_gap_demo.html").read_text(encoding="utf-8")
    assert "exam_scores" in study_page and "Welch" in study_page
    assert "score_gap_demo" in (toy_home / "site" / "score_gap.html").read_text(encoding="utf-8")
    assert "score_gap.html" in (toy_home / "site" / "index.html").read_text(encoding="utf-8")
    assert not (REPOSITORY_ROOT / "dbt_project" / "plugin_models").exists()
    assert (toy_home / "dbt" / "project" / "plugin_models" / "0").resolve() == PLUGIN / "dbt_project" / "models"


def test_the_plugin_family_adds_its_command_to_biaswh_ingest(tmp_path):
    listed = _biaswh(tmp_path, "ingest", "--help")
    assert listed.returncode == 0 and "score-gap-scores" in listed.stdout
    scores = PLUGIN / "studies" / "data" / "exam_scores.csv"
    loaded = _biaswh(tmp_path, "ingest", "score-gap-scores", str(scores), "--name", "by_hand")
    assert loaded.returncode == 0, loaded.stderr[-3000:]
    rows = _query(tmp_path, "select group_label, count(*), sum(score) from raw.score_gap_scores group by 1 order by 1")
    with scores.open(encoding="utf-8") as handle:
        expected = {}
        for row in csv.DictReader(handle):
            count, total = expected.get(row["group_label"], (0, 0.0))
            expected[row["group_label"]] = (count + 1, total + float(row["score"]))
    assert [(label, n, pytest.approx(total)) for label, n, total in rows] == [
        (label, n, total) for label, (n, total) in sorted(expected.items())
    ]
    assert _query(tmp_path, "select distinct score_set from raw.score_gap_scores") == [("by_hand",)]
    # without the plugin folder the command is not there: argparse's one line, exit 2
    missing = _biaswh(tmp_path, "ingest", "score-gap-scores", str(scores), plugins="")
    assert missing.returncode == 2 and missing.stderr.count("\n") == 1 and "invalid choice" in missing.stderr


def test_the_plugin_familys_output_option_is_guarded_and_its_names_join_the_help(tmp_path):
    home, elsewhere = tmp_path / "home", tmp_path / "elsewhere"
    home.mkdir()
    elsewhere.mkdir()
    scores = str(PLUGIN / "studies" / "data" / "exam_scores.csv")
    aimed = str(home / "warehouse.duckdb")
    refused = _biaswh(home, "ingest", "score-gap-scores", scores, "--report", aimed)
    assert refused.returncode == 2 and refused.stderr.count("\n") == 1, refused.stderr
    assert "ingest score-gap-scores --report" in refused.stderr and aimed in refused.stderr
    assert list(home.iterdir()) == []  # refused before the warehouse was opened
    report = elsewhere / "report.json"
    loaded = _biaswh(home, "ingest", "score-gap-scores", scores, "--report", str(report))
    assert loaded.returncode == 0, loaded.stderr[-3000:]
    assert json.loads(report.read_text(encoding="utf-8")) == {"rows": 12, "score_set": "exam_scores", "version": 1}
    # the kernel's help names the families and sources it finds, the plugin's among them
    assert "score-gap-scores" in _biaswh(home, "ingest", "--help").stdout.split("positional arguments")[0]
    build_help = " ".join(_biaswh(home, "build", "--help").stdout.split())
    assert "the families: dialect, evaluation, recsys, retrieval, score_gap, silent_bias, weat)" in build_help
    assert "score_gap" not in _biaswh(home, "build", "--help", plugins="").stdout
