"""The Ray compute engine gives what the local engine gives: the demo study run both ways in one warehouse."""

from __future__ import annotations

import dataclasses

import pytest

from tests.conftest import DEMO_STUDY, copy_warehouse, run_content_fingerprints
from warehouse.settings import HOME_VARIABLE

pytestmark = [pytest.mark.ray, pytest.mark.dbt]

RESULT_ROWS = (
    "select query_set, retriever, query_id, variant, corpus_split, rank, doc_id, score"
    " from raw.retrieval_results where run_id = ? order by all"
)


@pytest.fixture(scope="module")
def both_runs(tmp_path_factory, ray_local, demo_warehouse):
    """One warehouse after the demo study run locally (a copy of the session's demo warehouse),
    then on Ray (2 workers); (home, [(local run, engine), (Ray run, engine)])."""
    from biaswh.pipeline import run_study
    from warehouse.connection import connect

    home = copy_warehouse(demo_warehouse.home, tmp_path_factory.mktemp("ray-parity") / "warehouse")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(HOME_VARIABLE, str(home))
        run_study(str(DEMO_STUDY), compute="ray")  # reuses the local run's sources build
        connection = connect()
        runs = connection.execute(
            "select run_id, parameters->>'$.settings.compute.engine' from raw.runs"
            " where kind = 'study' and status = 'succeeded' order by started_at"
        ).fetchall()
        connection.close()
        yield home, runs


@pytest.fixture
def parity_con(both_runs, monkeypatch):
    from warehouse.connection import connect

    monkeypatch.setenv(HOME_VARIABLE, str(both_runs[0]))
    connection = connect()
    yield connection
    connection.close()


def test_the_second_run_ran_on_ray(both_runs):
    assert [engine for _, engine in both_runs[1]] == [None, "ray"]


def test_retrieval_results_are_bit_identical(both_runs, parity_con):
    (local, _), (on_ray, _) = both_runs[1]
    local_rows = parity_con.execute(RESULT_ROWS, [local]).fetchall()
    assert local_rows and local_rows == parity_con.execute(RESULT_ROWS, [on_ray]).fetchall()


def test_every_run_keyed_mart_is_identical(both_runs, parity_con):
    (local, _), (on_ray, _) = both_runs[1]
    expected = run_content_fingerprints(parity_con, local)
    assert expected["marts.fct_dialect_gold_ranks"][0] > 0 and expected["analysis.dialect_paired_tests"][0] > 0
    assert run_content_fingerprints(parity_con, on_ray) == expected


def test_chunks_fanned_out_over_workers_write_the_local_rows(both_runs, parity_con, monkeypatch):
    """BM25 in chunks of 3 queries: many chunks per query set, spread over both workers, written in order."""
    import compute.retrieval.steps as job
    from tests.compute.retrieval.test_retrieval_job import _pin_like_the_study, _study

    monkeypatch.setattr(job, "QUERY_CHUNK", 3)
    study = dataclasses.replace(_study(retrievers=["bm25", "bm25@k1=0.9,b=0.4"], hybrid={}), limit=None)
    for run_id, engine in (("chunks-local", "local"), ("chunks-ray", "ray")):
        _pin_like_the_study(parity_con, run_id)
        job.retrieval_job(
            parity_con, dataclasses.replace(study, settings={**study.settings, "compute": {"engine": engine}}), run_id
        )
    for query in (
        RESULT_ROWS,
        "select query_set, retriever, query_id, variant, n_hits, reason from raw.retrieval_query_stats"
        " where run_id = ? order by all",
        "select query_set, query_id, variant, query_text from raw.retrieval_queries where run_id = ? order by all",
        "select query_set, retriever, n_queries, n_queries_with_hits from raw.retrieval_runs"
        " where run_id = ? order by all",
    ):
        local = parity_con.execute(query, ["chunks-local"]).fetchall()
        assert local and local == parity_con.execute(query, ["chunks-ray"]).fetchall(), query
