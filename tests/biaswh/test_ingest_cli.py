"""``biaswh ingest corpus | corpus-queries | qrels`` and pairs over a corpus from the command line."""

import pytest

from biaswh.warehouse.database.connection import open_warehouse
from tests.conftest import DEMO_DATA, run_here
from tests.fingerprints import raw_fingerprint

BEIR = DEMO_DATA / "beir_demo"


@pytest.mark.parametrize("source", ["corpus", "corpus-queries", "qrels"])
def test_every_corpus_command_has_help(source, warehouse_home):
    assert run_here("ingest", source, "--help", home=warehouse_home).stdout.startswith("usage: biaswh")


def test_a_corpus_its_queries_judgments_and_pairs_load_from_the_command_line(warehouse_home):
    run_here("ingest", "corpus", str(BEIR), "--name", "kb", home=warehouse_home)
    run_here("ingest", "corpus-queries", str(BEIR), "--corpus", "kb", "--name", "kbq", home=warehouse_home)
    run_here("ingest", "qrels", str(BEIR / "qrels" / "test.tsv"), "--query-set", "queries:kbq", home=warehouse_home)
    loaded = run_here(
        "ingest", "pairs", str(BEIR / "dialect_pairs_by_query.csv"), "--query-set", "queries:kbq", home=warehouse_home
    )
    assert "loaded 12 rows into query_pairs 'dialect_pairs_by_query'" in loaded.stdout
    with open_warehouse(read_only=True) as con:
        counts = con.execute(
            "select (select count(*) from raw.corpus_documents), (select count(*) from raw.corpus_queries),"
            " (select count(*) from raw.evaluation_qrels),"
            " (select count(distinct gold_query_id) from raw.query_pair_variants where gold_kind = 'query_judgments')"
        ).fetchone()
        before = raw_fingerprint(con)
    assert counts == (12, 6, 10, 6)
    refused = run_here(
        "ingest",
        "pairs",
        str(BEIR / "dialect_pairs_by_document.csv"),
        "--corpus",
        "nope",
        home=warehouse_home,
        check=False,
    )
    assert refused.returncode == 2 and "corpus 'nope' need that corpus, which is not ingested" in refused.stderr
    with open_warehouse(read_only=True) as con:
        assert raw_fingerprint(con) == before
