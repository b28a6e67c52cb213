"""The real files in ../shared/data: SQuAD v1.1 train and the 200 SAE/AAE pairs."""

import pyarrow.parquet as pq
import pytest

from tests.conftest import run_here, shared_file

pytestmark = [pytest.mark.real_data, pytest.mark.dbt]


@pytest.fixture(scope="module")
def real(tmp_path_factory):
    squad = shared_file("squad-v1.1/train.parquet")
    pairs = shared_file("dialect-pairs/aave_poc_dataset_20250927-193921.json")
    home = tmp_path_factory.mktemp("real") / "warehouse"
    run_here("ingest", "squad", str(squad), "--split", "train", home=home)
    run_here("ingest", "pairs", str(pairs), home=home)
    run_here("build", home=home)
    return home


def _csv(home, sql):
    return run_here("sql", sql, "--csv", home=home).stdout.strip().splitlines()[1:]


def test_real_squad_loads_in_hugging_face_order(real):
    assert _csv(real, "select count(*) from raw.squad_questions") == ["87599"]
    assert _csv(real, "select question from stg_squad__questions where row_idx = 85143") == [
        "Who overshadowed House Speaker Dennis Hastert?"
    ]


def test_real_corpus_has_18891_documents_matching_the_published_embeddings(real):
    assert _csv(real, "select count(*) from dim_corpus_documents where split = 'train'") == ["18891"]
    embedded = set(
        pq.read_table(shared_file("embeddings/all-MiniLM-L6-v2.parquet"), columns=["text_sha256"]).column(0).to_pylist()
    )
    ours = _csv(real, "select text_sha256 from dim_corpus_documents")
    assert len(ours) == 18891 and set(ours) <= embedded


def test_all_200_real_pairs_map_to_their_gold_document(real):
    assert _csv(real, "select mapping_status, count(*) from fct_pair_gold_documents group by 1") == ["mapped,200"]
    assert _csv(real, "select count(*) from fct_query_variants") == ["400"]
    # Pair 0 references row 85143; its gold document is that row's normalised context.
    assert _csv(
        real,
        "select p.gold_doc_id = q.doc_id from fct_pair_gold_documents p join fct_squad_questions q"
        " on q.split = 'train' and q.row_idx = p.squad_idx where p.pair_id = '0'",
    ) == ["true"]
