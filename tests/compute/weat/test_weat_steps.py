"""The weat job's side: its settings, its selection from the marts, and what it hands to the store.

A real DuckDB holds the marts the job reads (``raw.run_inputs``, ``marts.dim_weat_embeddings``,
``marts.dim_weat_test_words``); the embeddings' vectors come from a matrix instead of LanceDB,
and the store is a recorder. What the job hands over is compared with ``run_weat_test`` and
``run_metrics`` called directly on the same words. Each test here failed on a mutant of
compute/weat/steps.py that test_weat_settings.py let through (issue 50).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

import duckdb
import numpy as np
import pytest

from biaswh.compute.weat import steps
from biaswh.compute.weat.coverage import Vocabulary
from biaswh.compute.weat.metric_store import metric_row
from biaswh.compute.weat.metrics import MetricOutcome, MetricSettings, planned_rows, run_metrics
from biaswh.compute.weat.runner import ROLES, WeatSettings, run_weat_test
from biaswh.warehouse.errors import UserError
from biaswh.warehouse.runs.study import Study

VOCABULARY = [f"{role}{i}" for role in ("x", "y", "a", "b") for i in range(4)]
# e1 and e2 share the words, not the vectors.
MATRICES = {
    table: np.random.default_rng(seed).normal(size=(len(VOCABULARY), 6)) + np.repeat(np.eye(6)[[0, 1, 0, 1]], 4, axis=0)
    for table, seed in (("lance_e1", 1), ("lance_e2", 2))
}
TEST_WORDS = {
    ("caliskan", "weat1"): {role: [f"{role[-1]}{i}" for i in range(4)] for role in ROLES},
    ("caliskan", "weat2"): {
        "target_x": ["x0", "x1", "zebra", "yak"],  # half missing: insufficient coverage
        "target_y": ["y0", "y1", "y2"],
        "attribute_a": ["a0", "a1", "a2"],
        "attribute_b": ["b0", "b1", "b2"],
    },
    ("greenwald", "weat3"): {
        "target_x": ["x2", "x3"],
        "target_y": ["y2", "y3"],
        "attribute_a": ["a0", "a3"],
        "attribute_b": ["b1", "b3"],
    },
}
LIGHT = {"bootstrap_resamples": 200, "metrics": {"names": ["rnd", "d_word_sets"], "bootstrap_resamples": 100}}


class MatrixVectors:
    """LanceVectors' interface over one of MATRICES."""

    def __init__(self, lancedb_table: str):
        self.matrix = MATRICES[lancedb_table]

    def words(self) -> list[str]:
        return list(VOCABULARY)

    def __getitem__(self, rows):
        return self.matrix[np.asarray(rows, dtype=int)]


def _study(weat: dict, jobs=("weat",)) -> Study:
    return Study(
        path=Path("study.toml"), name="s", seed=3, ingest=[], jobs=list(jobs), analysis=[], settings={"weat": weat}
    )


def _listed(test_set: str, test: str) -> list[dict]:
    """The test's words in the order the job reads them: by set role's name, then position."""
    return [
        {"set_role": role, "position": i, "word": word, "excluded_by_definition": False}
        for role in sorted(ROLES)
        for i, word in enumerate(TEST_WORDS[test_set, test][role], start=1)
    ]


@pytest.fixture
def con():
    con = duckdb.connect()
    con.execute("create schema raw; create schema marts")
    con.execute("create table raw.run_inputs (run_id varchar, dataset varchar, source_name varchar, version integer)")
    con.execute(
        "create table marts.dim_weat_embeddings (embedding varchar, source_version integer, lancedb_table varchar)"
    )
    con.execute(
        "create table marts.dim_weat_test_words (test_set varchar, test varchar, set_role varchar, position integer,"
        " word varchar, excluded_by_definition boolean)"
    )
    con.executemany(
        "insert into marts.dim_weat_embeddings values (?, ?, ?)", [("e2", 7, "lance_e2"), ("e1", 5, "lance_e1")]
    )
    for test_set, test in TEST_WORDS:
        rows = [(test_set, test, w["set_role"], w["position"], w["word"], False) for w in _listed(test_set, test)]
        con.executemany("insert into marts.dim_weat_test_words values (?, ?, ?, ?, ?, ?)", rows)
    yield con
    con.close()


def test_the_studys_metric_settings_and_their_refusals_name_the_file_and_the_table():
    no_table = Study(path=Path("study.toml"), name="s", seed=3, ingest=[], jobs=["weat"], analysis=[])
    assert steps.metric_settings(no_table) == MetricSettings()
    assert steps.weat_settings(no_table) == (WeatSettings(), {"embeddings": None, "test_sets": None, "tests": None})
    assert steps.metric_settings(_study({"match_policy": "lower"})) == MetricSettings()
    chosen = steps.metric_settings(_study({"metrics": {"names": ["rnd"], "vectors": "raw"}}))
    assert (chosen.names, chosen.vectors) == (("rnd",), "raw")
    with pytest.raises(UserError) as refused:
        steps.metric_settings(_study({"metrics": {"names": ["rnd", "rnd"]}}))
    assert str(refused.value) == "study.toml: [weat.metrics] names: 'rnd' listed twice; name each metric once"
    with pytest.raises(UserError, match=r"^study.toml: \[weat.metrics\] .*unexpected keyword argument 'splits'"):
        steps.metric_settings(_study({"metrics": {"splits": 3}}))
    # [weat] with its metrics table: the table is not an unknown [weat] option.
    settings, selection = steps.weat_settings(_study({"metrics": {"names": ["rnd"]}, "embeddings": ["e1"]}))
    assert settings == WeatSettings() and selection == {"embeddings": ["e1"], "test_sets": None, "tests": None}
    with pytest.raises(UserError) as refused:
        steps.weat_settings(_study({"zeta": 1, "alpha": 2, "balance": True}))
    assert str(refused.value) == "study.toml: unknown [weat] option(s): alpha, zeta"


def test_the_config_check_judges_both_tables_of_a_study_that_runs_weat():
    bad_metrics, bad_weat = _study({"metrics": {"vectors": "cosine"}}), _study({"min_coverage": 0})
    for study in (bad_metrics, bad_weat):
        with pytest.raises(UserError):
            steps.check_weat_settings(study)
    for study in (bad_metrics, bad_weat):
        assert steps.check_weat_settings(dataclasses.replace(study, jobs=["retrieval"])) is None  # not its job


def test_an_unset_selection_is_what_the_run_pinned_and_otherwise_everything(con):
    unset = {"embeddings": None, "test_sets": None, "tests": None}
    assert steps._default_selection(con, "r1", unset) == unset
    con.executemany(
        "insert into raw.run_inputs values (?, ?, ?, ?)",
        [("r1", "weat_embeddings", "e2", 7), ("r1", "weat_tests", "greenwald", 1), ("r1", "weat_tests", "caliskan", 1),
         ("r2", "weat_embeddings", "e1", 5), ("r1", "retrieval_corpus", "squad", 1)],
    )  # fmt: skip
    assert steps._default_selection(con, "r1", unset) == {
        "embeddings": ["e2"], "test_sets": ["caliskan", "greenwald"], "tests": None
    }  # fmt: skip
    chosen = {"embeddings": ["e1"], "test_sets": None, "tests": ["weat3"]}
    assert steps._default_selection(con, "r1", chosen) == {**chosen, "test_sets": ["caliskan", "greenwald"]}


def test_the_selection_filters_the_marts_and_refuses_what_is_not_loaded(con):
    everything = steps._selected(con, {"embeddings": None, "test_sets": None, "tests": None})
    assert everything == (
        [("e1", 5, "lance_e1"), ("e2", 7, "lance_e2")],
        [("caliskan", "weat1"), ("caliskan", "weat2"), ("greenwald", "weat3")],
    )
    assert steps._selected(con, {"embeddings": ["e2"], "test_sets": ["caliskan"], "tests": ["weat2", "weat3"]}) == (
        [("e2", 7, "lance_e2")],
        [("caliskan", "weat2")],
    )
    for selection, message in (
        ({"embeddings": ["e9", "e1", "e0"]}, "[weat] embeddings not loaded: e0, e9 (loaded: e1, e2)"),
        ({"test_sets": ["seat"]}, "[weat] test_sets not loaded: seat (loaded: caliskan, greenwald)"),
        ({"tests": ["weat7"]}, "[weat] tests not loaded: weat7 (loaded: weat1, weat2, weat3)"),
    ):
        with pytest.raises(UserError) as refused:
            steps._selected(con, {"embeddings": None, "test_sets": None, "tests": None, **selection})
        assert str(refused.value) == message
    with pytest.raises(UserError) as refused:
        steps._selected(con, {"embeddings": None, "test_sets": ["greenwald"], "tests": ["weat1"]})
    assert str(refused.value) == (
        "WEAT needs at least one embedding and one test: ingest word_vectors and weat_tests first"
    )
    con.execute("delete from marts.dim_weat_embeddings")
    with pytest.raises(UserError) as refused:
        steps._selected(con, {"embeddings": ["e1"], "test_sets": None, "tests": None})
    assert str(refused.value) == "[weat] embeddings not loaded: e1 (loaded: none)"


def test_the_job_hands_the_store_each_test_and_metric_as_run_directly(con, monkeypatch, capsys):
    recorded = {}
    monkeypatch.setattr(steps, "LanceVectors", MatrixVectors)
    monkeypatch.setattr(steps, "write_results", lambda con, run_id, results, settings, *, metric_rows: recorded.update(
        run_id=run_id, results=results, settings=settings, metric_rows=metric_rows))  # fmt: skip
    study = _study({**LIGHT, "tests": ["weat1", "weat2"]})
    steps.run_weat(con, study, "r1")
    settings, metrics = (
        WeatSettings(bootstrap_resamples=200),
        MetricSettings(names=("rnd", "d_word_sets"), bootstrap_resamples=100),
    )
    assert recorded["run_id"] == "r1" and recorded["settings"] == settings
    expected_results, expected_rows, printed = [], [], []
    for embedding, version, table in (("e1", 5, "lance_e1"), ("e2", 7, "lance_e2")):
        vocabulary = Vocabulary(VOCABULARY)
        for test in ("weat1", "weat2"):
            result = run_weat_test(
                _listed("caliskan", test), embedding=embedding, test_set="caliskan", test=test,
                vocabulary=vocabulary, vectors=MATRICES[table], settings=settings, study_seed=3,
            )  # fmt: skip
            expected_results.append((version, result))
            key = {
                "embedding": embedding, "embedding_version": version, "test_set": "caliskan", "test": test,
                "n_target_x": result.n_target_x, "n_target_y": result.n_target_y, "coverage": result.coverage,
            }  # fmt: skip
            if test == "weat1":
                used = {role: [m for m in result.matches if m.set_role == role and m.used] for role in ROLES}
                outcomes = run_metrics(
                    {r: MATRICES[table][[vocabulary.index[m.matched_word] for m in used[r]]] for r in ROLES},
                    {r: [m.word for m in used[r]] for r in ROLES},
                    embedding=embedding, test_set="caliskan", test=test, settings=metrics,
                    confidence_level=0.95, study_seed=3,
                )  # fmt: skip
                printed.append(
                    f"  {embedding} caliskan/{test}: computed d={result.effect_size:.2f} p={result.p_value:.4g}"
                    f" ({result.p_method})"
                )
            else:
                assert result.status == "insufficient coverage"
                outcomes = [
                    MetricOutcome(m, r, result.status, result.status_reason, None, result.seed)
                    for m, r in planned_rows(metrics)
                ]
                printed.append(f"  {embedding} caliskan/{test}: insufficient coverage ({result.status_reason})")
            expected_rows += [metric_row("r1", key, outcome) for outcome in outcomes]
    assert recorded["results"] == expected_results
    assert recorded["metric_rows"] == expected_rows and len(expected_rows) == 4 * 3
    assert capsys.readouterr().out.splitlines() == printed
