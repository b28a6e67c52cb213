"""A raw location that is a URL is refused before any work, never written to a folder named after it.

DuckDB writes the raw Parquet for Spark to a folder path; ``s3a://bucket/raw`` once exited 0 having
written a local folder ``s3a:`` while Spark was pointed at S3. No JVM starts in these tests.
"""

from __future__ import annotations

import pytest

from biaswh.warehouse.errors import UserError
from biaswh.warehouse.spark.raw_export import RAW_LOCATION_VARIABLE, check_raw_location, raw_location
from tests.conftest import REPOSITORY_ROOT, run_here


@pytest.mark.parametrize("url", ["s3a://bucket/raw", "gs://bucket/raw", "file:///srv/raw"])
def test_a_url_is_refused_in_one_line_naming_the_variable_and_the_missing_jars(url, monkeypatch):
    monkeypatch.setenv(RAW_LOCATION_VARIABLE, url)
    with pytest.raises(UserError) as refused:
        raw_location()
    message = str(refused.value)
    assert "\n" not in message and message.startswith(f"{RAW_LOCATION_VARIABLE}={url}: object storage")
    assert "hadoop-aws" in message and "aws-java-sdk-bundle" in message and "mount the bucket" in message


def test_a_folder_path_is_taken_as_it_is(tmp_path, monkeypatch):
    monkeypatch.setenv(RAW_LOCATION_VARIABLE, str(tmp_path / "lake" / "raw"))
    check_raw_location()
    assert raw_location() == str(tmp_path / "lake" / "raw")


def test_a_spark_run_with_a_url_exits_2_before_it_writes_anything(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv(RAW_LOCATION_VARIABLE, "s3a://bucket/raw")
    home = tmp_path / "warehouse"
    demo = str(REPOSITORY_ROOT / "studies" / "demo.toml")
    result = run_here("run", demo, "--target", "spark", home=home, check=False)
    assert result.returncode == 2
    assert f"{RAW_LOCATION_VARIABLE}=s3a://bucket/raw: object storage" in result.stderr
    assert not list(tmp_path.rglob("s3a*"))  # no local folder named after the URL
    assert not (home / "warehouse.duckdb").exists()  # refused before the warehouse was opened
