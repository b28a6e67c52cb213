"""A large append runs under a capped DuckDB memory limit, and the warehouse's own limit comes back."""

from __future__ import annotations

import duckdb
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from biaswh.warehouse.database.transactions import STREAMING_MEMORY_LIMIT, streaming_memory, transaction
from biaswh.warehouse.settings.home import MEMORY_LIMIT_VARIABLE


def _limit(con) -> str:
    return con.execute("select current_setting('memory_limit')").fetchone()[0]


def test_a_larger_limit_is_capped_during_the_append_and_set_again_after(monkeypatch):
    monkeypatch.setenv(MEMORY_LIMIT_VARIABLE, "3GB")
    con = duckdb.connect(config={"memory_limit": "3GB"})
    before = _limit(con)
    with streaming_memory(con):
        assert _limit(con) == f"{STREAMING_MEMORY_LIMIT // 1024**2}.0 MiB"
    assert _limit(con) == before == "2.7 GiB"


def test_a_smaller_limit_is_kept(monkeypatch):
    monkeypatch.setenv(MEMORY_LIMIT_VARIABLE, "100MB")
    con = duckdb.connect(config={"memory_limit": "100MB"})
    with streaming_memory(con):
        assert _limit(con) == "95.3 MiB"
    assert _limit(con) == "95.3 MiB"


def test_the_limit_comes_back_when_the_append_fails_and_the_transaction_rolls_back(tmp_path, monkeypatch):
    monkeypatch.setenv(MEMORY_LIMIT_VARIABLE, "2GB")
    con = duckdb.connect(str(tmp_path / "w.duckdb"), config={"memory_limit": "2GB"})
    con.execute("create table t (x integer not null)")
    pq.write_table(pa.table({"x": pa.array([1, None], pa.int32())}), tmp_path / "rows.parquet")
    with pytest.raises(duckdb.ConstraintException), transaction(con), streaming_memory(con):
        con.execute("insert into t select x from read_parquet(?)", [str(tmp_path / "rows.parquet")])
    assert _limit(con) == "1.8 GiB" and con.execute("select count(*) from t").fetchone() == (0,)
