"""The real files in ../shared/data: SQuAD v1.1 train and the 200 SAE/AAE pairs.

As the session's real dialect studies loaded and built them (tests/real_dialect_studies.py): the
same readers `biaswh ingest squad` and `biaswh ingest pairs` call, whose commands on these files
docs/studies/dialect.md runs (tests/docs/test_real_data_examples.py). The seed-compatible study
loaded the pairs under a name of its own: the checks of the pairs read the default's.
"""

import pyarrow.parquet as pq
import pytest

from tests.conftest import run_here, shared_file
from tests.real_dialect_studies import PAIR_SET

pytestmark = [pytest.mark.real_data, pytest.mark.dbt]


@pytest.fixture(scope="module")
def real(real_dialect_studies):
    """The warehouse the session's real dialect studies loaded both files into (tests/real_dialect_studies.py)."""
    return real_dialect_studies.home


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
    assert _csv(
        real, f"select mapping_status, count(*) from fct_pair_gold_documents where pair_set = '{PAIR_SET}' group by 1"
    ) == ["mapped,200"]
    assert _csv(real, f"select count(*) from fct_query_variants where pair_set = '{PAIR_SET}'") == ["400"]
    # Pair 0 references row 85143; its gold document is that row's normalised context.
    assert _csv(
        real,
        "select p.gold_doc_id = q.doc_id from fct_pair_gold_documents p join fct_squad_questions q"
        f" on q.split = 'train' and q.row_idx = p.squad_idx where p.pair_id = '0' and p.pair_set = '{PAIR_SET}'",
    ) == ["true"]
