"""The query a run prints when it ends ("query this run (biaswh sql ...)"): each one runs through
`biaswh sql`'s sandbox in the demo site's warehouse and answers for a demo run (a renamed column
would hand the user an error)."""

from __future__ import annotations

import re

import pytest

from biaswh.adhoc_sql import SEARCH_PATH
from biaswh.plugins import load_plugins
from biaswh.warehouse.database.sandbox import open_sandbox
from biaswh.warehouse.runs.study import FIRST_QUERIES
from biaswh.warehouse.settings.home import HOME_VARIABLE

pytestmark = pytest.mark.dbt


def test_every_printed_first_query_answers_for_a_demo_run(demo_site, monkeypatch):
    load_plugins()  # every family's steps, which register their first queries
    monkeypatch.setenv(HOME_VARIABLE, str(demo_site.parent))
    with open_sandbox(SEARCH_PATH) as con:
        runs = [r[0] for r in con.execute("select run_id from raw.runs where status = 'succeeded'").fetchall()]
        answered = {
            step: any(con.execute(query.format(run=run)).fetchall() for run in runs)
            for step, query in FIRST_QUERIES.items()
        }
    assert len(answered) >= 5 and all(answered.values()), answered


def test_no_printed_first_query_shows_one_adjustment_method_under_every_policy():
    # p_adjusted is the run's verdict policy's (Holm, or BH under [verdicts] adjustment = "bh")
    load_plugins()
    named = {step: query for step, query in FIRST_QUERIES.items() if re.search(r"\bp_(holm|bh)\b", query)}
    assert FIRST_QUERIES and not named, named
