"""The raw Parquet lake on object storage: written to s3:// by DuckDB's httpfs and read back exactly.

moto's S3 server runs in a thread on 127.0.0.1 (no network beyond it); the warehouse is the
session's demo warehouse, opened read-only. No JVM starts here: Spark cannot read s3a:// without
jars pyspark lacks, and a Spark run refuses such a location (test_spark_raw_location.py).
"""

from __future__ import annotations

import duckdb
import pytest

from biaswh.warehouse.database.object_storage import open_object_storage
from biaswh.warehouse.errors import UserError
from biaswh.warehouse.spark.raw_export import export_raw

# moto accepts any key; these values must still never reach the lake, a log or the warehouse.
KEY_ID, SECRET = "biaswh-test-key", "biaswh-test-secret-value"


@pytest.fixture(scope="module")
def s3_bucket():
    """An empty bucket on moto's S3 server at 127.0.0.1, with the credentials and endpoint in the environment."""
    import boto3
    from moto.server import ThreadedMotoServer

    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    endpoint = f"http://{host}:{port}"
    try:
        with pytest.MonkeyPatch.context() as patch:
            for name, value in (
                ("AWS_ACCESS_KEY_ID", KEY_ID),
                ("AWS_SECRET_ACCESS_KEY", SECRET),
                ("AWS_REGION", "us-east-1"),
                ("AWS_ENDPOINT_URL_S3", endpoint),
            ):
                patch.setenv(name, value)
            client = boto3.client("s3", endpoint_url=endpoint, region_name="us-east-1")
            client.create_bucket(Bucket="lake")
            yield client
    finally:
        server.stop()


def _columns(connection, relation: str) -> dict[str, str]:
    return {name: kind for name, kind, *_ in connection.execute(f"describe select * from {relation}").fetchall()}


def test_the_raw_lake_round_trips_through_s3_exactly(s3_bucket, demo_warehouse):
    connection = duckdb.connect(str(demo_warehouse.home / "warehouse.duckdb"), read_only=True)
    try:
        tables = export_raw(connection, location="s3://lake/raw")
        keys = [item["Key"] for item in s3_bucket.list_objects_v2(Bucket="lake")["Contents"]]
        runs = {row[0] for row in connection.execute("select distinct run_id from raw.runs").fetchall()}
        assert {f"raw/runs/run_id={run}/data.parquet" for run in runs} <= set(keys)
        checked = 0
        for table in tables:
            if table.partitioned:
                options = "hive_partitioning = true, hive_types = {'run_id': varchar}"
                back = f"read_parquet('s3://lake/raw/{table.name}/*/*.parquet', {options})"
            else:
                back = f"read_parquet('s3://lake/raw/{table.name}/*.parquet')"
            ours = f"raw.{table.name}"
            if connection.execute(f"select count(*) from {ours}").fetchone()[0] == 0 and table.partitioned:
                continue  # no run has rows: no partition, nothing to read back
            assert _columns(connection, back) == _columns(connection, ours), table.name
            names = ", ".join(f'"{name}"' for name in _columns(connection, ours))
            for one, two in ((ours, back), (back, ours)):
                query = f"select count(*) from (select {names} from {one} except all select {names} from {two})"
                assert connection.execute(query).fetchone()[0] == 0, (table.name, one)
            counts = [connection.execute(f"select count(*) from {r}").fetchone()[0] for r in (ours, back)]
            assert counts[0] == counts[1], table.name
            checked += 1
        assert checked >= 10, checked  # every raw table the demo fills
        # The credentials live in the connection's memory only: a temporary secret, shown redacted.
        secrets = connection.execute("select persistent, secret_string from duckdb_secrets()").fetchall()
        assert secrets and all(not persistent and SECRET not in text for persistent, text in secrets)
    finally:
        connection.close()
    assert SECRET.encode() not in (demo_warehouse.home / "warehouse.duckdb").read_bytes()


def test_missing_credentials_are_refused_in_one_line_naming_the_variables_only(monkeypatch):
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", KEY_ID)
    monkeypatch.delenv("AWS_SECRET_ACCESS_KEY", raising=False)
    with duckdb.connect() as connection, pytest.raises(UserError) as refused:
        open_object_storage(connection, "s3://lake/raw")
    message = str(refused.value)
    assert message == "s3://lake/raw: object storage needs the credentials AWS_SECRET_ACCESS_KEY in the environment"
    assert KEY_ID not in message


def test_a_scheme_other_than_s3_is_refused(monkeypatch):
    with duckdb.connect() as connection, pytest.raises(UserError, match="only s3:// object storage is supported"):
        open_object_storage(connection, "gs://lake/raw")
