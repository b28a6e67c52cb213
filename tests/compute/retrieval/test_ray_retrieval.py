"""Retrieval chunks on Ray actors: the local rows, in chunk order, through a dying worker."""

from __future__ import annotations

import random

import pyarrow as pa
import pytest

from biaswh.compute.common.engine import ComputeSettings
from biaswh.compute.retrieval.chunks import retrieve_chunk
from biaswh.compute.retrieval.config import config_from_settings
from biaswh.compute.retrieval.runner import Corpus, Query

pytestmark = pytest.mark.ray

WORDS = "river bank money loan water fish boat interest rate flood account tree".split()


def _corpus_and_chunks(n_chunks: int = 6) -> tuple[dict, list[list[Query]]]:
    rng = random.Random(7)
    texts = [" ".join(rng.choice(WORDS) for _ in range(8)) for _ in range(60)]
    corpora = {"train": Corpus(list(range(100, 160)), texts)}
    asked = [" ".join(rng.choice(WORDS) for _ in range(3)) for _ in range(4 * n_chunks)]
    queries = [Query(f"q{n}", "sae", "train", text) for n, text in enumerate(asked)]
    return corpora, [queries[first : first + 4] for first in range(0, len(queries), 4)]


def _local(corpora, chunks, config, tmp_path) -> list[tuple]:
    rows, indexes = [], {}
    for chunk in chunks:
        retrieve_chunk(
            chunk,
            corpora,
            config,
            run_id="r",
            query_set="s",
            provider=None,
            cache=None,
            lancedb_dir=tmp_path,
            bm25_indexes=indexes,
            add_results=lambda table: rows.extend(table.to_pylist()),
        )
    return rows


def _rows(results) -> list[dict]:
    return [row for result in results for encoded in result.parquet for row in _decoded(encoded)]


def _decoded(encoded: bytes) -> list[dict]:
    import pyarrow.parquet as pq

    return pq.read_table(pa.BufferReader(encoded)).to_pylist()


def _new_pool(folder):
    from biaswh.compute.retrieval.ray_retrieval import RayRetrieval

    corpora, chunks = _corpus_and_chunks()
    config = config_from_settings({"retrievers": ["bm25", "bm25@k1=0.9,b=0.4"], "depth": 5})
    return RayRetrieval(ComputeSettings("ray"), corpora, config, lancedb_dir=folder), corpora, chunks, config


@pytest.fixture(scope="module")
def shared_pool(ray_local, tmp_path_factory):
    """One pool for the tests whose workers Ray restarts (each worker is a process to start), in a list:
    emptied by a test that needs the workers' CPUs for a pool of its own."""
    holder = [_new_pool(tmp_path_factory.mktemp("ray-pool"))]
    yield holder
    for made in holder:
        made[0].close()


@pytest.fixture
def pool(shared_pool, tmp_path_factory):
    """The module's pool, handed the first corpus and configuration again (a test may have given it others)."""
    if not shared_pool:
        shared_pool.append(_new_pool(tmp_path_factory.mktemp("ray-pool")))
    ray_pool, corpora, _, config = shared_pool[0]
    ray_pool.use(corpora, config)
    return shared_pool[0]


@pytest.fixture
def own_pool(shared_pool, tmp_path):
    """A pool of the test's own (its workers stay dead), started once the module's pool has ended."""
    while shared_pool:
        shared_pool.pop()[0].close()
    made = _new_pool(tmp_path)
    yield made
    made[0].close()


def test_a_restarted_worker_retries_its_chunk_and_the_rows_match_the_local_engine(pool, tmp_path):
    ray_pool, corpora, chunks, config = pool
    results = ray_pool.map(chunks, run_id="r", query_set="s", bm25_indexes={}, vectors=None)
    first = next(results)
    for actor in ray_pool._actors:  # both workers die with chunks queued or in flight; Ray restarts them
        ray_pool.ray.kill(actor, no_restart=False)
    remote = _rows([first, *results])
    assert len(remote) > 0 and remote == _local(corpora, chunks, config, tmp_path)


def test_a_pool_handed_another_corpus_and_configuration_retrieves_with_them_even_after_a_restart(pool, tmp_path):
    """The next run of an evaluation series: the same actors load the new corpus and configuration;
    one restarted afterwards loads them too (what the shelf holds now), never the first run's."""
    ray_pool, corpora, chunks, config = pool
    first_rows = _rows(ray_pool.map(chunks, run_id="r", query_set="s", bm25_indexes={}, vectors=None))
    actors = list(ray_pool._actors)
    fewer = {"train": Corpus(corpora["train"].doc_ids[::2], corpora["train"].texts[::2])}
    other = config_from_settings({"retrievers": ["bm25"], "bm25": {"k1": 0.3, "b": 0.1}, "depth": 7})
    ray_pool.use(fewer, other)
    results = ray_pool.map(chunks, run_id="r", query_set="s", bm25_indexes={}, vectors=None)
    first = next(results)
    assert ray_pool._actors == actors  # loaded, not started again
    ray_pool.ray.kill(actors[0], no_restart=False)
    remote = _rows([first, *results])
    assert remote == _local(fewer, chunks, other, tmp_path) and remote != first_rows


def test_a_worker_that_stays_dead_fails_the_job(own_pool):
    ray_pool, _, chunks, _ = own_pool
    results = ray_pool.map(chunks, run_id="r", query_set="s", bm25_indexes={}, vectors=None)
    next(results)
    for actor in ray_pool._actors:
        ray_pool.ray.kill(actor, no_restart=True)
    with pytest.raises(ray_pool.ray.exceptions.RayActorError):
        list(results)


QUIET_RUN = """
import sys
from biaswh.compute.common.engine import ComputeSettings
from biaswh.compute.retrieval.config import config_from_settings
from biaswh.compute.retrieval.ray_retrieval import RayRetrieval
from tests.compute.retrieval.test_ray_retrieval import _corpus_and_chunks

corpora, chunks = _corpus_and_chunks(2)
config = config_from_settings({"retrievers": ["bm25"], "depth": 3})
pool = RayRetrieval(ComputeSettings("ray", workers=1), corpora, config, lancedb_dir=sys.argv[1])
results = pool.map(chunks, run_id="r", query_set="s", bm25_indexes={}, vectors=None)
print("result rows", sum(r.n_results for r in results))
pool.close()
"""


def test_a_ray_job_started_here_prints_one_line_of_its_own_and_nothing_of_rays(tmp_path):
    """Ray's start-up notes (token mode, 'Started a local Ray instance', the restartable actors'
    object-store arguments) stay off the terminal; the job says what it started."""
    import os
    import re
    import subprocess
    import sys

    from biaswh.warehouse.settings.home import REPOSITORY_ROOT

    env = {**os.environ, "PYTHONPATH": str(REPOSITORY_ROOT)}
    env.pop("RAY_AUTH_MODE", None)
    done = subprocess.run(
        [sys.executable, "-c", QUIET_RUN, str(tmp_path)], capture_output=True, text=True, env=env, timeout=300
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    lines = done.stdout.splitlines()
    assert len(lines) == 2 and re.fullmatch(r"  a local Ray instance \(1 CPUs\) started in \d+\.\d s", lines[0]), lines
    assert lines[1] == "result rows 24"
