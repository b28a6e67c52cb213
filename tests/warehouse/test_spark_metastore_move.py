"""A moved warehouse folder's Spark metastore names its own folder (warehouse/spark/metastore_move.py).

No Spark session: a real Derby database shaped as Spark's Hive 2.3 metastore (the tables and
columns that hold locations) is made with Derby's ij from pyspark's jars, as a Spark build in
``$BIASWH_HOME`` leaves it, then the folder is moved (the old one renamed away) and re-pointed.
"""

from __future__ import annotations

import shutil

import pytest

from biaswh.warehouse.settings.home import HOME_VARIABLE
from tests.dbt_project.spark_equality import require_spark

SCHEMA = """
create table DBS (DB_ID bigint, NAME varchar(128), DB_LOCATION_URI varchar(4000));
create table SDS (SD_ID bigint, LOCATION varchar(4000));
create table SERDE_PARAMS (SERDE_ID bigint, PARAM_KEY varchar(256), PARAM_VALUE clob);
create table TABLE_PARAMS (TBL_ID bigint, PARAM_KEY varchar(256), PARAM_VALUE clob);
"""


def _rows(spark: str, raw: str) -> str:
    """What a Spark build's metastore holds, for a warehouse whose Spark folder is ``spark``."""
    return f"""
insert into DBS values (1, 'default', 'file:{spark}/warehouse'), (2, 'marts', 'file:{spark}/warehouse/marts.db');
insert into SDS values (1, 'file:{spark}/warehouse/marts.db/fct_scores'),
  (2, 'file:{spark}/warehouse/marts.db/fct_scores/run_id=a'), (3, 'file:{raw}/runs'),
  (4, 'file:{spark}/warehouse/raw.db/dbt_state-__PLACEHOLDER__'), (5, 'file:{spark}-other/x');
insert into SERDE_PARAMS values (1, 'path', 'file:{spark}/warehouse/marts.db/fct_scores'),
  (2, 'serialization.format', '1');
insert into TABLE_PARAMS values (1, 'spark.sql.sources.provider', 'parquet');
"""


@pytest.fixture
def moved(tmp_path, monkeypatch):
    """(old Spark folder, new Spark folder): a Spark folder with its metastore, moved; the old name gone."""
    require_spark()
    from biaswh.warehouse.spark.metastore_move import _connect, _derby

    old_home, new_home = tmp_path / "first" / "warehouse", tmp_path / "bigger disk" / "warehouse"
    old = old_home / "spark"
    old.mkdir(parents=True)
    metastore = old / "metastore_db"
    script = (
        _connect(metastore).replace(f"{metastore}';", f"{metastore};create=true';")
        + SCHEMA
        + _rows(str(old), "/shared/raw")
    )
    _derby(script + "disconnect;\n", folder=old)
    new_home.parent.mkdir(parents=True)
    shutil.move(old_home, new_home)
    monkeypatch.setenv(HOME_VARIABLE, str(new_home))
    return old, new_home / "spark"


def _locations(spark) -> list[str]:
    from biaswh.warehouse.spark.metastore_move import _connect, _derby

    query = (
        "select 'LOC=' || DB_LOCATION_URI from DBS union all select 'LOC=' || LOCATION from SDS"
        " union all select 'LOC=' || cast(PARAM_VALUE as varchar(4000)) from SERDE_PARAMS;\n"
    )
    output = _derby(_connect(spark / "metastore_db") + query + "disconnect;\n", folder=spark)
    return sorted(line[4:].strip() for line in output.splitlines() if line.startswith("LOC="))


def test_every_location_in_the_old_folder_names_the_new_one(moved):
    from biaswh.warehouse.spark.metastore_move import RECORD_FILE, repoint_metastore

    old, new = moved
    assert repoint_metastore() == (f"file:{old}", f"file:{new}")
    assert not old.exists()  # nothing was written where the folder was
    assert _locations(new) == sorted(
        [
            f"file:{new}/warehouse",
            f"file:{new}/warehouse/marts.db",
            f"file:{new}/warehouse/marts.db/fct_scores",
            f"file:{new}/warehouse/marts.db/fct_scores/run_id=a",
            f"file:{new}/warehouse/marts.db/fct_scores",
            f"file:{new}/warehouse/raw.db/dbt_state-__PLACEHOLDER__",
            "file:/shared/raw/runs",  # a lake outside the folder stays where it is
            f"file:{old}-other/x",  # a folder whose name only starts like the old one
            "1",  # another option of the table, not a location
        ]
    )
    assert (new / RECORD_FILE).read_text(encoding="utf-8").strip() == f"file:{new}"
    assert repoint_metastore() is None  # recorded: no second JVM for an unmoved folder


def test_an_unmoved_folder_is_left_as_it_is(tmp_path, monkeypatch):
    require_spark()
    from biaswh.warehouse.spark.metastore_move import repoint_metastore, repoint_script

    monkeypatch.setenv(HOME_VARIABLE, str(tmp_path / "never built"))
    assert repoint_metastore() is None  # no metastore yet: nothing to do, no JVM
    script = repoint_script(tmp_path / "m", "file:/a/it's", "file:/b")
    assert "locate('file:/a/it''s/', LOCATION) = 1" in script and script.rstrip().endswith("disconnect;")
