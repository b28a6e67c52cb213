"""The internal-documents study's per-query metrics against trec_eval itself, on the docs' run of it.

The checks of tests/dbt_project/test_metrics_against_trec_eval.py, collected here with this
module's warehouse: the one the docs' real-data examples ran in (tests/real_data_examples.py,
once per session, read only), where docs/bring-your-own-data.md runs
`biaswh run studies/internal_docs_evaluation.toml` whole. The study is a corpus of one-line notes
from ../shared/data, its Markdown gold questions and our BEIR-layout judgments naming documents
by their source ids. Its run is that warehouse's only evaluation series (it starts from the demo
warehouse, a dialect study), so the checks read every evaluation run there, as they do in a
warehouse of one study.
"""

from __future__ import annotations

import duckdb
import pytest

from tests.conftest import shared_file
from tests.dbt_project.test_metrics_against_trec_eval import (  # noqa: F401 - collected here, on this warehouse
    test_each_evaluation_run_is_judged_by_its_query_sets_qrels_pinned_in_dbt,
    test_every_query_metric_is_trec_evals,
)

pytestmark = [pytest.mark.dbt, pytest.mark.real_data]
STUDY = "internal_docs_evaluation"
COMPARED = 3 * 4 * 6 * 5 * 7  # runs x rankings x judged queries x cutoffs x 7 metrics


@pytest.fixture(scope="module")
def warehouse(real_data_examples):
    """(connection, metric values compared, study) on the examples' warehouse, read only."""
    shared_file("retrieval-eval/internal_docs.md")
    con = duckdb.connect(str(real_data_examples.home / "warehouse.duckdb"), read_only=True)
    series = con.execute(
        "select distinct r.name from raw.evaluation_runs e join raw.runs r on r.run_id = e.series_run_id"
    ).fetchall()
    assert series == [(STUDY,)], series  # no other study's runs among those the checks read
    yield con, COMPARED, STUDY
    con.close()


def test_the_internal_documents_keep_their_source_ids_and_alerts_fire(warehouse):
    con, _, _ = warehouse
    documents = con.execute(
        "select count(*), count(*) filter (where source_doc_id like 'internal_docs.md:%')"
        " from marts.dim_corpus_documents where split = 'internal_docs'"
    ).fetchone()
    assert documents == (104, 104)  # one document per non-empty line
    assert con.execute("select count(*) from marts.fct_corpus_queries where query_set = 'gold_queries'").fetchone() == (
        10,
    )
    # the gold document of question 3 (the PostgreSQL migration heading) is line 50 of the notes
    assert con.execute(
        "select d.source_doc_id from intermediate.int_evaluation_judgments_pinned j"
        " join raw.evaluation_runs e using (run_id)"
        " join marts.dim_corpus_documents d on d.split = 'internal_docs' and d.doc_id = j.doc_id"
        " where e.is_baseline and j.query_id = '3' and j.relevance = 2 order by d.doc_id limit 1"
    ).fetchone() == ("internal_docs.md:50",)
    labels = {r[0] for r in con.execute("select distinct label from analysis.evaluation_alerts").fetchall()}
    assert "index_missing_10pct" in labels
