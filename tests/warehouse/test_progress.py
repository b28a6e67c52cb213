"""The in-place counter: drawn on a terminal, silent elsewhere, erased when its step ends."""

from __future__ import annotations

import io
from types import SimpleNamespace

from biaswh.warehouse.progress import Progress, counted, node_progress, progress_enabled


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_counter_on_a_terminal_is_rewritten_in_place_and_erased(monkeypatch):
    monkeypatch.delenv("BIASWH_PROGRESS", raising=False)
    screen = Terminal()
    counter = Progress("[demo] embedding", 3, unit="batches", stream=screen)
    for _ in range(3):
        counter.advance()
    counter.close()
    text = screen.getvalue()
    assert "\r[demo] embedding: 1/3 batches" in text and "\r[demo] embedding: 3/3 batches" in text
    assert "\n" not in text and text.endswith("\r")  # one line, left blank for the step's own summary


def test_nothing_is_written_when_stdout_is_not_a_terminal(monkeypatch, capsys):
    monkeypatch.delenv("BIASWH_PROGRESS", raising=False)
    assert list(counted([1, 2, 3], "[demo] retrieval", unit="chunks")) == [1, 2, 3]
    assert capsys.readouterr().out == ""
    assert not progress_enabled(io.StringIO())
    monkeypatch.setenv("BIASWH_PROGRESS", "0")
    assert not progress_enabled(Terminal())


def test_dbt_events_count_finished_nodes_against_the_builds_total(monkeypatch, capsys):
    monkeypatch.setenv("BIASWH_PROGRESS", "1")

    def event(name, **data):
        return SimpleNamespace(info=SimpleNamespace(name=name), data=SimpleNamespace(**data))

    with node_progress("[demo] dbt build (results)") as on_event:
        on_event(event("LogStartLine", total=2, index=1))
        on_event(event("NodeFinished"))
        on_event(event("LogStartLine", total=2, index=2))
        on_event(event("NodeFinished"))
    out = capsys.readouterr().out
    assert "[demo] dbt build (results): 2/2 nodes" in out


def test_duckdbs_own_progress_bar_is_off_on_every_connection_we_open(tmp_path):
    # DuckDB draws its bar on standard output for any query slower than 2 s: under load that
    # text landed in a subprocess's output and would land in a piped `biaswh sql` result.
    from biaswh.warehouse.database.connection import open_file
    from biaswh.warehouse.database.lance_tables import _database

    setting = "select current_setting('enable_progress_bar')"
    con = open_file(tmp_path / "w.duckdb", read_only=False)
    assert con.execute(setting).fetchone() == (False,)
    con.close()
    assert _database().execute(setting).fetchone() == (False,)
