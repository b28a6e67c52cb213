"""The Ray compute engine gives what the local engine gives: the demo dialect and evaluation studies run both ways.

Four study runs on Ray, each compared with the same study's local run: the dialect demo over 2
corpus shards (query chunks and sharded BM25 and dense search, merged), and the evaluation demo
unsharded (each run's queries fanned out over both workers; its ANN run searching one index from
both) and over 2 corpus shards (the ANN index searched beside the shards). The unsharded pool's
BM25 chunks are compared in :func:`test_chunks_fanned_out_over_workers_write_the_local_rows` and in
``tests/compute/retrieval/test_ray_retrieval.py``; a Ray run of the dialect demo without shards
would prove nothing these do not.
"""

from __future__ import annotations

import dataclasses
import math
import shutil

import numpy as np
import pytest

from biaswh.warehouse.settings.home import HOME_VARIABLE, REPOSITORY_ROOT
from tests import prebuilt
from tests.conftest import DEMO_STUDY, assert_refused, copy_warehouse, run_main
from tests.fingerprints import run_content_fingerprints

pytestmark = [pytest.mark.ray, pytest.mark.dbt]

EVALUATION_STUDY = REPOSITORY_ROOT / "studies" / "demo_evaluation.toml"
RESULT_ROWS = (
    "select query_set, retriever, query_id, variant, corpus_split, rank, doc_id, score"
    " from raw.retrieval_results where run_id = ? order by all"
)


@pytest.fixture(scope="module")
def both_runs(tmp_path_factory, ray_local, demo_warehouse):
    """A copy of the session's demo warehouse (the demo study ran there locally), after the evaluation
    study ran locally, then the demo on Ray over 2 corpus shards and the evaluation study on Ray
    without and with 2 shards (2 workers).

    Each engine's runs start from an empty embedding cache of their own, so the Ray runs embed
    the demo's texts on Ray workers: the local evaluation run continues a copy of the cache the
    demo's local run filled (a vector's last bits depend on the texts of its forward batch, so
    both engines must embed the same texts in the same steps).
    Yields (home, {(study, engine): run id}, {engine: cache folder}).
    """
    import biaswh
    from biaswh.pipeline import run_study
    from biaswh.warehouse.database.connection import connect

    root = tmp_path_factory.mktemp("ray-parity")
    # Under `make test` the local evaluation run is the prebuild's (tests/prebuilt.py: the demo
    # warehouse, then that study, with the vectors they used), copied; else it runs here.
    evaluated = prebuilt.prebuilt("evaluation")
    home = copy_warehouse(evaluated / "warehouse" if evaluated else demo_warehouse.home, root / "warehouse")
    vectors = evaluated / "embeddings" if evaluated else demo_warehouse.embedding_cache
    caches = {"local": shutil.copytree(vectors, root / "vectors-local"), "ray": root / "vectors-ray"}
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(HOME_VARIABLE, str(home))
        patch.setenv("BIASWH_EMBEDDING_CACHE", str(caches["local"]))
        if not evaluated:
            run_study(str(EVALUATION_STUDY))
        patch.setenv("BIASWH_EMBEDDING_CACHE", str(caches["ray"]))
        # The Ray runs reuse the local runs' sources builds. The demo's 28 documents in 2 shards:
        # each cut falls inside the one dense tile. The Python API's options, as a notebook passes them
        # (no site: no test here reads a page).
        biaswh.open(home, read_only=False).run(DEMO_STUDY, compute="ray", corpus_shards=2, dashboards=False)
        biaswh.open(home, read_only=False).run(EVALUATION_STUDY, compute="ray", dashboards=False)
        biaswh.open(home, read_only=False).run(EVALUATION_STUDY, compute="ray", corpus_shards=2, dashboards=False)
        connection = connect()
        runs = connection.execute(
            "select name, coalesce(parameters->>'$.settings.compute.engine', 'local')"
            " || coalesce(' shards ' || (parameters->>'$.settings.compute.corpus_shards'), ''), run_id"
            " from raw.runs where kind = 'study' and status = 'succeeded' order by started_at"
        ).fetchall()
        connection.close()
        yield home, {(name, engine): run_id for name, engine, run_id in runs}, caches


@pytest.fixture
def parity_con(both_runs, monkeypatch):
    from biaswh.warehouse.database.connection import connect

    monkeypatch.setenv(HOME_VARIABLE, str(both_runs[0]))
    connection = connect()
    yield connection
    connection.close()


def test_the_second_runs_ran_on_ray(both_runs):
    assert sorted(both_runs[1]) == [
        ("demo", "local"),
        ("demo", "ray shards 2"),
        ("demo_evaluation", "local"),
        ("demo_evaluation", "ray"),
        ("demo_evaluation", "ray shards 2"),
    ]


def test_retrieval_results_are_bit_identical(both_runs, parity_con):
    runs = both_runs[1]
    local_rows = parity_con.execute(RESULT_ROWS, [runs["demo", "local"]]).fetchall()
    ray_rows = parity_con.execute(RESULT_ROWS, [runs["demo", "ray shards 2"]]).fetchall()
    # Named, not diffed: pytest's own diff of two lists this long takes hours.
    differing = [(here, there) for here, there in zip(local_rows, ray_rows) if here != there]
    assert local_rows and len(local_rows) == len(ray_rows), (len(local_rows), len(ray_rows))
    assert not differing, f"{len(differing)} of {len(local_rows)} rows differ, e.g. (local, ray): {differing[:3]}"


def test_every_run_keyed_mart_of_the_dialect_study_is_identical(both_runs, parity_con):
    runs = both_runs[1]
    expected = run_content_fingerprints(parity_con, runs["demo", "local"])
    assert expected["marts.fct_dialect_gold_ranks"][0] > 0 and expected["analysis.dialect_paired_tests"][0] > 0
    assert run_content_fingerprints(parity_con, runs["demo", "ray shards 2"]) == expected


# What differs between any two runs of the series, on either engine, and is left out: measured
# wall-clock latencies (their tables, and the alert checks on them); and the fusion choice among
# settings whose tuning values tie but for the last bit of DuckDB's parallel average (the tie
# itself is kept). An alert's tests are seeded by the check's identity, not a run id, so its
# interval and p are compared (analysis/evaluation/alerts.py).
# Doubles are compared to 1e-9: a hash of rounded values can straddle a rounding step.
WALL_CLOCK_TABLES = ("marts.agg_evaluation_latency", "marts.fct_evaluation_query_latency")
LEFT_OUT_COLUMNS = {
    "marts.fct_evaluation_fusion_choice": ("chosen_retriever", "chosen_parameter", "report_value"),
}


def _run_rows(connection, table: str, run_id: str) -> list[tuple]:
    columns = connection.execute(
        "select column_name from information_schema.columns where table_schema || '.' || table_name = ?"
        " and column_name not like '%run_id' and data_type not like 'TIMESTAMP%' order by ordinal_position",
        [table],
    ).fetchall()
    kept = [name for (name,) in columns if name not in LEFT_OUT_COLUMNS.get(table, ())]
    no_latency = " and metric not like 'latency%'" if "metric" in kept else ""
    listed = ", ".join(f'"{name}"' for name in kept)
    return connection.execute(
        f"select {listed} from {table} where run_id = ?{no_latency} order by all", [run_id]
    ).fetchall()


def _same_rows(left: list[tuple], right: list[tuple]) -> bool:
    def same(a, b) -> bool:
        if isinstance(a, float) and isinstance(b, float):
            return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12)
        return a == b

    return len(left) == len(right) and all(len(a) == len(b) and all(map(same, a, b)) for a, b in zip(left, right))


def _series_rows(connection, study_run_id: str) -> dict:
    """Per (label, table): the rows of the study run ("series") and of each labelled evaluation run."""
    children = connection.execute(
        "select parameters->>'$.label', run_id from raw.runs where kind = 'evaluation_run'"
        " and (parameters->>'$.series_run_id') = ?",
        [study_run_id],
    ).fetchall()
    return {
        (label, table): _run_rows(connection, table, run_id)
        for label, run_id in [("series", study_run_id), *children]
        for table in run_content_fingerprints(connection, run_id)
        if table not in WALL_CLOCK_TABLES
    }


@pytest.mark.parametrize("engine", ["ray", "ray shards 2"])
def test_every_run_keyed_mart_of_the_evaluation_study_is_identical(both_runs, parity_con, engine):
    runs = both_runs[1]
    expected = _series_rows(parity_con, runs["demo_evaluation", "local"])
    assert len({label for label, _ in expected}) == 5 and expected["baseline", "marts.agg_evaluation_fusion_sweep"]
    found = _series_rows(parity_con, runs["demo_evaluation", engine])
    assert [key for key in expected if not _same_rows(found.get(key, []), expected[key])] == []


@pytest.mark.parametrize("engine", ["ray", "ray shards 2"])
def test_the_evaluation_runs_retrieved_the_local_rows_and_measured_the_local_ann_recall(both_runs, parity_con, engine):
    """Every evaluation run's ranked hits (wall-clock latencies aside) and its ANN index's recall."""
    labelled = (
        "select e.label, r.query_set, r.retriever, r.query_id, r.variant, r.rank, r.doc_id, r.score"
        " from raw.retrieval_results r join raw.evaluation_runs e using (run_id) where e.series_run_id = ? order by all"
    )
    recall = (
        "select e.label, r.retriever, r.ann_index, r.ann_recall from raw.retrieval_runs r"
        " join raw.evaluation_runs e using (run_id) where e.series_run_id = ? and r.ann_recall is not null order by all"
    )
    runs = both_runs[1]
    for query in (labelled, recall):
        local = parity_con.execute(query, [runs["demo_evaluation", "local"]]).fetchall()
        assert local and parity_con.execute(query, [runs["demo_evaluation", engine]]).fetchall() == local, query
    recalls = parity_con.execute(recall, [runs["demo_evaluation", engine]]).fetchall()
    assert [(label, index) for label, _, index, _ in recalls] == [("dense_ivf_flat", "ivf_flat")] * len(recalls)


def test_the_ray_runs_embedded_the_local_vectors(both_runs):
    from biaswh.ingest.common.embedding_cache import EmbeddingCache

    def cached(engine: str) -> tuple[list, np.ndarray]:
        known = EmbeddingCache(both_runs[2][engine], "all-MiniLM-L6-v2").known().sort_by("text_sha256")
        vectors = known.column("vector").combine_chunks().flatten().to_numpy(zero_copy_only=False)
        return known.column("text_sha256").to_pylist(), vectors

    (local_keys, local_vectors), (ray_keys, ray_vectors) = cached("local"), cached("ray")
    assert len(local_keys) > 50 and ray_keys == local_keys and np.array_equal(ray_vectors, local_vectors)


def test_chunks_fanned_out_over_workers_write_the_local_rows(both_runs, parity_con, monkeypatch):
    """BM25 in chunks of 3 queries: many chunks per query set, spread over both workers, written in order
    (the first 12 pairs and 12 questions: 8 and 4 chunks; every query of the demo goes to Ray in the runs above)."""
    import biaswh.compute.retrieval.query_set_retrieval as chunked
    import biaswh.compute.retrieval.steps as job
    from tests.compute.retrieval.test_retrieval_job import _pin_like_the_study, _study

    monkeypatch.setattr(chunked, "QUERY_CHUNK", 3)
    monkeypatch.setattr(chunked, "RAY_QUERY_CHUNK", 3)
    study = dataclasses.replace(_study(retrievers=["bm25", "bm25@k1=0.9,b=0.4"], hybrid={}), limit=12)
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


def test_more_shards_than_documents_are_refused_before_ray_is_asked_for(both_runs, monkeypatch, capsys):
    """29 shards of the evaluation demo's 28 documents: refused in one line (exit 2) when the job has
    read the corpus, before any run of the series embeds its texts or starts its pool on Ray."""
    import biaswh.compute.retrieval.ray_embeddings as ray_embeddings
    import biaswh.compute.retrieval.ray_shards as ray_shards

    def not_yet(settings):
        raise AssertionError("Ray was asked for before the shards were checked")

    for module in (ray_embeddings, ray_shards):
        monkeypatch.setattr(module, "ensure_ray", not_yet)
    monkeypatch.setenv(HOME_VARIABLE, str(both_runs[0]))
    code, _, error = run_main(["run", str(EVALUATION_STUDY), "--compute", "ray", "--corpus-shards", "29"], capsys)
    assert_refused(code, error, ["corpus_shards: 29 is more shards than split", "has documents (28)"])
