"""dbt's event messages built field by field equal the ones protobuf's JSON parser builds."""

from __future__ import annotations

import pytest
from dbt_common.events.base_types import EventLevel, msg_from_base_event

from biaswh.warehouse.dbt_build import event_messages


def _events():
    from dbt.adapters.events.types import ConnectionUsed, SQLQuery, SQLQueryStatus
    from dbt.events.types import LogTestResult, MainReportVersion, NodeFinished
    from dbt_common.events.types import Note

    node_info = {"node_name": "fct_x", "unique_id": "model.bias_warehouse.fct_x", "node_status": "success"}
    return [
        SQLQuery(conn_name="fct_x", sql="select 1", node_info=node_info),
        SQLQueryStatus(status="OK", elapsed=0.25, node_info=node_info),
        ConnectionUsed(conn_type="duckdb", conn_name="master", node_info={}),
        MainReportVersion(version="1.11", log_version=3),
        LogTestResult(name="checks_x", status="fail", index=2, num_models=4, execution_time=0.1, num_failures=3),
        NodeFinished(node_info=node_info, run_result={"status": "success", "message": "OK"}),
        Note(msg="a note"),
    ]


@pytest.mark.parametrize("level", [None, EventLevel.WARN, EventLevel.DEBUG])
def test_every_field_but_the_time_is_dbts_and_the_time_is_now(level, monkeypatch):
    monkeypatch.setenv("DBT_ENV_CUSTOM_ENV_STUDY", "squad_dialect")  # dbt's metadata variables ("extra")
    from dbt_common.events import functions

    monkeypatch.setattr(functions, "metadata_vars", None)
    for event in _events():
        ours, dbts = event_messages._message(event, level), msg_from_base_event(event, level)
        assert abs((ours.info.ts.ToDatetime() - dbts.info.ts.ToDatetime()).total_seconds()) < 1
        assert dict(ours.info.extra) == {"STUDY": "squad_dialect"}
        ours.info.ts.Clear()
        dbts.info.ts.Clear()
        assert ours == dbts, type(event).__name__


def test_installing_twice_keeps_dbts_own_function_once():
    from dbt_common.events import event_manager

    event_messages.install()
    event_messages.install()
    assert event_manager.msg_from_base_event is event_messages._message
    assert event_messages._message.original is msg_from_base_event
