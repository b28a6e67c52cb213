"""Five weekly ticks of studies/demo_monitoring.toml: one alert, delivered once, kept, acknowledged, resolved.

The series is the session's (:func:`tests.monitoring_series.monitoring_series`): the demo's live
system loses half its index in the weeks of 2026-01-26 and 2026-02-02 and recovers on 2026-02-09;
the ticks are a healthy week before (2026-01-05), both weeks of the drop, the recovery and the week after.
Each tick is a real study run (ingest, dbt build, evaluation, analysis) in one warehouse; the
alerts go to a webhook receiver on 127.0.0.1 (its URL, a secret, from the environment), to a
webhook that always fails, to one whose variable is unset, and to a file. Between the ticks the
alert is acknowledged through the CLI.
"""

from __future__ import annotations

import datetime
import json

import duckdb
import pytest

from tests.conftest import assert_refused, run_here, run_main
from tests.monitoring_series import ACK_NOTE, DROP, RECOVERED, STUDY, WEEKS, first_tick_rows

pytestmark = pytest.mark.dbt


@pytest.fixture(scope="module")
def ticks(monitoring_series):
    """(home, config folder, receivers, per tick (week, run id, alert states, bodies received), first tick's rows)."""
    series = monitoring_series
    states = [(t.week, t.run_id, t.alert_states, t.generic_bodies, t.slack_bodies) for t in series.ticks]
    return series.home, series.folder, series.receivers, states, series.first_tick_rows


def test_each_tick_is_a_study_run_recording_its_week(ticks):
    home, *_, states, _ = ticks
    with duckdb.connect(str(home / "warehouse.duckdb"), read_only=True) as con:
        for week, run_id, *_ in states:
            status, recorded = con.execute(
                "select status, parameters->>'$.settings.monitoring.partition' from raw.runs where run_id = ?", [run_id]
            ).fetchone()
            assert (status, recorded) == ("succeeded", week.isoformat())


def test_exactly_one_alert_opens_on_the_planted_week_is_kept_and_resolves_on_recovery(ticks):
    home, *_, states, _ = ticks
    by_week = {week: state for week, _, state, *_ in states}
    assert all(by_week[week] == [] for week in WEEKS if week < DROP)
    ((alert_id, opened),) = by_week[DROP]
    assert opened == "open"
    assert by_week[DROP + datetime.timedelta(days=7)] == [(alert_id, "acknowledged")]  # kept, not reopened
    assert all(by_week[week] == [(alert_id, "resolved")] for week in WEEKS if week >= RECOVERED)
    with duckdb.connect(str(home / "warehouse.duckdb"), read_only=True) as con:
        events = con.execute(
            "select partition, event, note from evaluation_alert_events where alert_id = ? order by created_at, event",
            [alert_id],
        ).fetchall()
        row = con.execute(
            "select opened_partition, resolved_partition, metric, acknowledged_note, opened_value < baseline_value"
            " from evaluation_alert_state"
        ).fetchone()
    kept = DROP + datetime.timedelta(days=7)
    assert [(p, e) for p, e, _ in events] == [
        (DROP, "opened"), (DROP, "acknowledged"), (kept, "persisting"), (RECOVERED, "resolved"),
    ]  # fmt: skip
    assert row == (DROP, RECOVERED, "mrr@10", ACK_NOTE, True)


def test_the_alert_is_delivered_once_when_opened_and_once_when_resolved(ticks):
    _, folder, (generic, slack, _), states, _ = ticks
    delivered = {week: (n_generic, n_slack) for week, _, _, n_generic, n_slack in states}
    week = datetime.timedelta(days=7)  # the last tick, a week after the recovery: nothing delivered again
    assert WEEKS == [datetime.date(2026, 1, 5), DROP, DROP + week, RECOVERED, RECOVERED + week]
    assert [delivered[week] for week in WEEKS] == [(0, 0)] + [(1, 1)] * 2 + [(2, 2)] * 2
    opened, resolved = generic.bodies
    assert (opened["event"], resolved["event"]) == ("opened", "resolved")
    assert opened["partition"] == DROP.isoformat() and opened["metric"] == "mrr@10" and opened["p_value"] < 0.05
    assert opened["value"] < opened["baseline_value"] and opened["alert_id"] == resolved["alert_id"]
    assert set(slack.bodies[0]) == {"text"} and opened["alert_id"] in slack.bodies[0]["text"]
    lines = [json.loads(line) for line in (folder / "alerts.jsonl").read_text(encoding="utf-8").splitlines()]
    assert [line["event"] for line in lines] == ["opened", "resolved"]


def test_a_failing_webhook_is_recorded_attempt_by_attempt_and_fails_no_tick(ticks):
    home, _, (_, _, broken), states, _ = ticks
    assert len(broken.bodies) == 6  # opened and resolved, each 1 + 2 retries
    with duckdb.connect(str(home / "warehouse.duckdb"), read_only=True) as con:
        attempts = con.execute(
            "select target, event, attempt, status, http_status, reason from analysis.evaluation_alert_deliveries"
            " where status = 'failed' order by target, event, attempt"
        ).fetchall()
    assert [a[:5] for a in attempts if a[0] == "$TEST_BROKEN_WEBHOOK"] == [
        ("$TEST_BROKEN_WEBHOOK", event, n, "failed", 503) for event in ("opened", "resolved") for n in (1, 2, 3)
    ]
    assert [a[5] for a in attempts if a[0] == "$TEST_UNSET_WEBHOOK"] == ["$TEST_UNSET_WEBHOOK is not set"] * 2
    assert len(states) == len(WEEKS)  # every tick ended (succeeded: test_each_tick_is_a_study_run_recording_its_week)


def test_no_webhook_url_is_stored_in_the_warehouse(ticks):
    home, *_ = ticks
    with duckdb.connect(str(home / "warehouse.duckdb"), read_only=True) as con:
        columns = con.execute(
            "select table_schema, table_name, column_name from information_schema.columns join"
            " information_schema.tables using (table_schema, table_name)"
            " where data_type in ('VARCHAR', 'JSON') and table_type = 'BASE TABLE'"
        ).fetchall()
        found = [
            (schema, table, column)
            for schema, table, column in columns
            if con.execute(
                f'select count(*) from "{schema}"."{table}" where "{column}"::varchar like ?', ["%very-secret-token%"]
            ).fetchone()[0]
        ]
    assert not found and len(columns) > 50


def test_the_first_ticks_rows_are_unchanged_by_the_four_after_it(ticks):
    home, *_, states, snapshot = ticks
    with duckdb.connect(str(home / "warehouse.duckdb"), read_only=True) as con:
        now = first_tick_rows(con, states[0][1])
    assert all(rows for rows in snapshot) and now == snapshot


def test_alerts_lists_the_open_ones_and_all_with_all(ticks):
    home, *_ = ticks
    assert "no open alerts" in run_here("alerts", home=home).stdout
    listed = run_here("alerts", "--all", home=home).stdout
    assert "resolved" in listed and "mrr@10" in listed


def test_a_resolved_or_unknown_alert_cannot_be_acknowledged(ticks, capsys):
    home, *_ = ticks
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("BIASWH_HOME", str(home))
        code, _, error = run_main(["alerts", "ack", "000000000000", "--note", "x"], capsys)
    assert_refused(code, error, ["alerts ack 000000000000", "no such alert"])


@pytest.mark.parametrize(
    ("edit", "names"),
    [
        (('live = { callable = "biaswh.compute.evaluation.demo_live_system:demo_search" }',
          'live = { callable = "biaswh.compute.evaluation.demo_live_system:missing" }'),
         ["demo_monitoring.toml", "live.callable", "no function 'missing'"]),
        (('start = "2026-01-05"', 'start = "next monday"'), ["demo_monitoring.toml", "[monitoring] start"]),
        (('file = "demo_monitoring_alerts.jsonl"', 'file = "a.jsonl"\nwebhook_env = "X"'),
         ["demo_monitoring.toml", "[[monitoring.deliver]] #1", "exactly one of webhook_env or file"]),
    ],
)  # fmt: skip
def test_a_bad_monitoring_config_is_refused_in_one_line_naming_file_and_field(tmp_path, capsys, edit, names):
    text = STUDY.read_text(encoding="utf-8").replace('"demo_data/', f'"{STUDY.parent}/demo_data/')
    assert edit[0] in text
    (tmp_path / "demo_monitoring.toml").write_text(text.replace(edit[0], edit[1]), encoding="utf-8")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("BIASWH_HOME", str(tmp_path / "home"))
        code, _, error = run_main(["monitor", str(tmp_path / "demo_monitoring.toml"), "--once"], capsys)
    assert_refused(code, error, names)


def test_a_week_off_the_studys_weeks_is_refused(tmp_path, capsys):
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("BIASWH_HOME", str(tmp_path / "home"))
        code, _, error = run_main(["monitor", str(STUDY), "--once", "--partition", "2026-01-07"], capsys)
    assert_refused(code, error, ["--partition 2026-01-07", "not a week of [monitoring] start = 2026-01-05"])
