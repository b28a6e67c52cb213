import json

from ingest.squad import load_squad
from tests.conftest import DEMO_DATA
from warehouse.runs import file_sha256, package_versions


def test_every_raw_row_and_run_is_traceable(con):
    source = DEMO_DATA / "squad_demo.json"
    result = load_squad(con, str(source))
    sha = file_sha256(source)
    assert con.execute("select distinct run_id, source_sha256 from raw.squad_questions").fetchall() == [(result.run_id, sha)]
    run = con.execute("select kind, status, parameters, code_version, package_versions, started_at <= finished_at,"
                      " row_counts from raw.runs where run_id = ?", [result.run_id]).fetchone()
    kind, status, parameters, code_version, packages, ordered, counts = run
    assert (kind, status, ordered) == ("ingest_squad", "succeeded", True)
    assert json.loads(parameters)["split"] == "train"
    assert code_version and code_version != "unknown"
    assert json.loads(packages)["duckdb"] == package_versions()["duckdb"]
    assert json.loads(counts) == {"squad": 64}
    assert con.execute("select source_path, source_sha256, size_bytes from raw.run_sources").fetchall() == [
        (str(source), sha, source.stat().st_size)]


def test_sha256_matches_hashlib(tmp_path):
    import hashlib

    path = tmp_path / "x.bin"
    path.write_bytes(b"abc" * 1_000_000)
    assert file_sha256(path) == hashlib.sha256(b"abc" * 1_000_000).hexdigest()
