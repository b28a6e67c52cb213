"""SQuAD exported to the BEIR layout and read back gives exactly the SQuAD path's metrics.

The demo drift series runs over the SQuAD path (contexts as the corpus, questions as queries,
the demo qrels file). Its corpus, questions and judgments are then written as a BEIR folder
(``corpus.jsonl``, ``queries.jsonl``, ``qrels/test.tsv``) and the same series runs over that
folder as a corpus query set: every per-query metric of every run, retriever and k is equal.
"""

from __future__ import annotations

import json
import tomllib

import duckdb
import pytest

from biaswh.warehouse.settings.home import REPOSITORY_ROOT
from tests.conftest import copy_warehouse, run_study_here
from tests.dbt_project.conftest import demo_vectors

pytestmark = pytest.mark.dbt
STUDY = REPOSITORY_ROOT / "studies" / "demo_evaluation.toml"


def _export_beir(con, folder) -> None:
    """The demo SQuAD validation corpus, questions and qrels as a BEIR folder (ids: doc_id, row_idx)."""
    (folder / "qrels").mkdir(parents=True)
    with (folder / "corpus.jsonl").open("w", encoding="utf-8") as handle:
        for doc_id, text in con.execute(
            "select doc_id, document_text from marts.dim_corpus_documents where split = 'demo_validation'"
            " order by doc_id"
        ).fetchall():
            handle.write(json.dumps({"_id": str(doc_id), "title": "", "text": text}) + "\n")
    with (folder / "queries.jsonl").open("w", encoding="utf-8") as handle:
        for row_idx, question in con.execute(
            "select row_idx, question from marts.fct_squad_questions where split = 'demo_validation' order by row_idx"
        ).fetchall():
            handle.write(json.dumps({"_id": str(row_idx), "text": question}) + "\n")
    with (folder / "qrels" / "test.tsv").open("w", encoding="utf-8") as handle:
        handle.write("query-id\tcorpus-id\tscore\n")
        for query_id, doc_id, relevance in con.execute(
            "select query_id, doc_id, relevance from marts.fct_evaluation_qrels"
            " where query_set = 'squad_questions_demo_validation' order by query_id, doc_id"
        ).fetchall():
            handle.write(f"{query_id}\t{doc_id}\t{relevance}\n")


def _beir_study(folder, path) -> None:
    """demo_evaluation.toml with its ingest steps and query set replaced by the BEIR folder."""
    text = STUDY.read_text(encoding="utf-8")
    settings = tomllib.loads(text)
    assert settings["evaluation"]["query_set"] == "squad_questions:demo_validation"
    head, _, rest = text.partition("[[ingest]]")
    tail = rest[rest.index("[retrieval]") :]
    ingest = f"""
[[ingest]]
source = "corpus"
path = "{folder}"
name = "squad_beir"

[[ingest]]
source = "corpus_queries"
path = "{folder}"
name = "squad_beir_validation"
corpus = "squad_beir"

[[ingest]]
source = "qrels"
path = "{folder / "qrels" / "test.tsv"}"
query_set = "queries:squad_beir_validation"

"""
    text = head.replace('name = "demo_evaluation"', 'name = "demo_evaluation_beir"') + ingest + tail
    text = text.replace("squad_questions:demo_validation", "queries:squad_beir_validation")
    text = text.replace('"demo_data/', f'"{STUDY.parent / "demo_data"}/')
    path.write_text(text, encoding="utf-8")


def test_squad_through_beir_gives_the_squad_paths_metrics(tmp_path, demo_evaluation):
    home = copy_warehouse(demo_evaluation[0], tmp_path / "warehouse")  # the session's run of STUDY, copied to add one
    with duckdb.connect(str(home / "warehouse.duckdb"), read_only=True) as con:
        _export_beir(con, tmp_path / "beir")
    study = tmp_path / "demo_evaluation_beir.toml"
    _beir_study(tmp_path / "beir", study)
    with demo_vectors(demo_evaluation[0], tmp_path):  # the squad path's vectors: the same texts, the same bits
        run_study_here(str(study), home=home, site=False)  # metrics only: no site drawn
    with duckdb.connect(str(home / "warehouse.duckdb"), read_only=True) as con:
        metrics = con.execute(
            """
            select r.series_name, r.label, m.retriever, m.query_id, m.k,
                [m.recall, m.precision, m.f1, m.hit_rate, m.mrr, m.ndcg, m.map, m.r_precision]
            from marts.fct_evaluation_query_metrics m join marts.dim_evaluation_runs r using (run_id)
            """
        ).fetchall()
        corpus = con.execute(
            "select count(*) from marts.dim_corpus_documents where split = 'squad_beir' and corpus_source = 'corpus'"
        ).fetchone()[0]
    assert corpus > 0
    by_path: dict[str, dict] = {"demo_evaluation": {}, "demo_evaluation_beir": {}}
    for series, label, retriever, query_id, k, values in metrics:
        by_path[series][(label, retriever, query_id, k)] = values
    squad, beir = by_path["demo_evaluation"], by_path["demo_evaluation_beir"]
    assert len(squad) == 4 * 20 * 64 * 5
    assert beir == squad
