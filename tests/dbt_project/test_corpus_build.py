"""A real `dbt build` (models, data tests, unit tests) of the corpus models on a temporary warehouse of demo data.

The build selects the models this module reads and their ancestors (their data tests and unit tests
with them); the whole project's build, every unit test included, runs in tests/warehouse/test_run_scope.py
(`biaswh build`).
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from biaswh.warehouse.settings.home import DBT_PROJECT_DIR, HOME_VARIABLE
from tests.conftest import DEMO_DATA, run_here

pytestmark = pytest.mark.dbt
# What this module reads, with every model, data test and unit test they depend on (a data test
# that also reads a model outside them, such as another family's runs, is left to that family's builds).
CORPUS_MODELS = ["+dim_corpus_documents", "+fct_pair_gold_documents", "+fct_query_variants", "+dim_runs"]


@pytest.fixture(scope="module")
def built(tmp_path_factory):
    home = tmp_path_factory.mktemp("dbt") / "warehouse"
    run_here("ingest", "squad", str(DEMO_DATA / "squad_demo.json"), home=home)
    run_here("ingest", "pairs", str(DEMO_DATA / "dialect_pairs_demo.csv"), home=home)
    # dbt must work directly from its folder with the committed profiles.yml.
    dbt = Path(sys.executable).parent / "dbt"
    completed = subprocess.run(
        [str(dbt), "build", "--select", *CORPUS_MODELS, "--indirect-selection", "cautious"],
        cwd=DBT_PROJECT_DIR,
        capture_output=True,
        text=True,
        env={**os.environ, HOME_VARIABLE: str(home)},
        timeout=600,
    )
    assert completed.returncode == 0, completed.stdout[-3000:]
    assert "ERROR=0" in completed.stdout and "unit_test dim_corpus_documents::" in completed.stdout
    return home


def _query(home, sql):
    with duckdb.connect(str(home / "warehouse.duckdb"), read_only=True) as con:
        return con.execute(sql).fetchall()


def test_corpus_is_normalised_deduplicated_and_ordered(built):
    document = json.loads((DEMO_DATA / "squad_demo.json").read_text(encoding="utf-8"))
    contexts = [p["context"] for a in document["data"] for p in a["paragraphs"]]
    questions_per_context = [len(p["qas"]) for a in document["data"] for p in a["paragraphs"]]
    first_rows = [sum(questions_per_context[:i]) for i in range(len(contexts))]
    docs = _query(built, "select doc_id, document_text, first_row_idx from marts.dim_corpus_documents order by doc_id")
    assert [d[0] for d in docs] == list(range(len(contexts)))
    assert [d[2] for d in docs] == first_rows
    rain = docs[5][1]
    assert rain.startswith("Rainwater harvesting collects") and '"rain barrel"' in rain and "it's placed" in rain
    assert "  " not in rain


def test_every_demo_pair_maps_to_the_document_of_its_squad_row(built):
    rows = _query(
        built,
        "select p.pair_id, p.squad_idx, p.gold_doc_id, p.mapping_status, q.doc_id"
        " from marts.fct_pair_gold_documents p join marts.fct_squad_questions q"
        " on q.split = p.squad_split and q.row_idx = p.squad_idx",
    )
    document = json.loads((DEMO_DATA / "squad_demo.json").read_text(encoding="utf-8"))
    row_to_doc = [d for d, a in enumerate(p for a in document["data"] for p in a["paragraphs"]) for _ in a["qas"]]
    assert len(rows) == 42
    assert all(status == "mapped" and gold == doc == row_to_doc[idx] for _, idx, gold, status, doc in rows)
    variants = _query(built, "select count(*), count(distinct variant) from marts.fct_query_variants")
    assert variants == [(84, 2)]


def test_staging_uses_the_latest_version_and_unmapped_pairs_keep_a_reason(built, tmp_path):
    document = json.loads((DEMO_DATA / "squad_demo.json").read_text(encoding="utf-8"))
    document["data"] = document["data"][:4]  # 12 questions: pairs with squad_idx >= 12 lose their row
    smaller = tmp_path / "squad_demo.json"
    smaller.write_text(json.dumps(document), encoding="utf-8")
    run_here("ingest", "squad", str(smaller), home=built)
    # The models read here again, after the new SQuAD version and the new run, with their data tests
    # (cautious: those of other families' models, never built here, stay out).
    run_here("build", "--select", *CORPUS_MODELS, "--indirect-selection", "cautious", home=built)
    assert _query(built, "select count(*), max(source_version) from staging.stg_squad__questions") == [(12, 2)]
    statuses = dict(_query(built, "select mapping_status, count(*) from marts.fct_pair_gold_documents group by 1"))
    assert statuses == {"mapped": 9, "squad_idx_not_in_split": 33}
    runs = _query(built, "select run_kind, run_status from marts.dim_runs order by started_at")
    assert [r[0] for r in runs] == ["ingest_squad", "ingest_query_pairs", "ingest_squad"]
