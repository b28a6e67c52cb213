"""A monitored system's series page, read in a real browser after real weekly ticks of the monitoring demo.

The session's ticks of studies/demo_monitoring.toml (:mod:`tests.monitoring_series`: the planted
drop starts on 2026-01-26 and is gone on 2026-02-09), and in a copy of its warehouse two more
monitored studies, the same config under ``[verdicts] alpha = 0.01`` and under ``adjustment = "bh"``
(named ``demo_monitoring_alpha`` and ``demo_monitoring_bh``), each ticked in the drop's first week:
its alert opens and is still open, each page names its own study's policy, and one draw of the site
holds the three pages. The default series covers the alert's resolution. Every sentence and chart
point of each page is checked against the warehouse it was drawn from.
"""

from __future__ import annotations

import datetime
import json

import duckdb
import pytest

from biaswh.dashboards.common.format import fixed
from tests.conftest import REPOSITORY_ROOT, copy_warehouse
from tests.dashboards.conftest import open_page
from tests.dashboards.site_formats import page_findings
from tests.monitoring_series import DROP
from tests.monitoring_series import WEEKS as SERIES_WEEKS

pytestmark = pytest.mark.dbt
STUDY = REPOSITORY_ROOT / "studies" / "demo_monitoring.toml"
WEEKS = {
    "default": [week.isoformat() for week in SERIES_WEEKS],  # the session's series
    "alpha": [DROP.isoformat()],
    "bh": [DROP.isoformat()],
}
POLICIES = {"alpha": "[verdicts]\nalpha = 0.01\n", "bh": '[verdicts]\nadjustment = "bh"\n'}
STUDY_NAMES = {policy: "demo_monitoring" if policy == "default" else f"demo_monitoring_{policy}" for policy in WEEKS}
PAGES = {policy: f"monitoring/{name}-live.html" for policy, name in STUDY_NAMES.items()}
_SPECS = """return Array.from(document.querySelectorAll('script[id$="-spec"]')).map(s => s.textContent);"""


@pytest.fixture(scope="module")
def sites(tmp_path_factory, monitoring_series):
    """Policy -> (its warehouse file, its site folder): a copy of the session's series with the
    policies' studies ticked in it (:data:`STUDY_NAMES`, :data:`WEEKS`), and one dashboard build."""
    from biaswh.evaluation.monitor import run_tick
    from biaswh.pipeline import dashboards
    from biaswh.warehouse.settings.home import HOME_VARIABLE

    folder = tmp_path_factory.mktemp("series")
    home = copy_warehouse(monitoring_series.home, folder / "warehouse")
    text = STUDY.read_text(encoding="utf-8").replace('"demo_data/', f'"{STUDY.parent}/demo_data/')
    for policy, weeks in WEEKS.items():
        if policy == "default":
            continue
        config = folder / f"{STUDY_NAMES[policy]}.toml"
        named = text.replace('name = "demo_monitoring"', f'name = "{STUDY_NAMES[policy]}"', 1)
        assert named != text
        config.write_text(named + "\n" + POLICIES[policy], encoding="utf-8")
        for week in weeks:
            run_tick(config, datetime.date.fromisoformat(week), home=home)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(HOME_VARIABLE, str(home))
        site = dashboards(str(folder / "site"))
    return {policy: (home / "warehouse.duckdb", site) for policy in WEEKS}


def _stored(warehouse, policy: str):
    con = duckdb.connect(str(warehouse), read_only=True)
    try:
        alerts = con.execute(
            "select metric, severity, state, opened_partition, resolved_partition, last_partition, opened_value,"
            " baseline_value from analysis.evaluation_alert_state where study_name = ?",
            [STUDY_NAMES[policy]],
        ).fetchall()
        weeks = con.execute(
            "select cast(json_extract_string(r.parameters, '$.settings.monitoring.partition') as varchar),"
            " c.is_breached, coalesce(a.is_significant, false), a.p_adjusted, a.alpha"
            " from marts.fct_evaluation_alert_checks c join marts.dim_runs r on r.run_id = c.series_run_id"
            " left join analysis.evaluation_alerts a on a.run_id = c.run_id and a.metric = c.metric"
            " and a.retriever = c.retriever where c.label = 'live' and r.run_name = ? order by 1",
            [STUDY_NAMES[policy]],
        ).fetchall()
    finally:
        con.close()
    assert [week for week, *_ in weeks] == WEEKS[policy]  # each study's own ticks, no other study's
    return alerts, weeks


def _expected_lead(alerts, n_weeks: int) -> str:
    if not alerts:
        return f"No alert on demo_search in {_weeks(n_weeks)}"
    sentences = []
    for metric, severity, state, opened, resolved, last, value, baseline in alerts:
        if state == "resolved":
            closing = f"resolved in the week of {resolved}"
        else:
            closing = f"{state} since, last seen in the week of {last}"
        level = f"at {fixed(value, 3)} against the baseline's {fixed(baseline, 3)}"
        sentences.append(f"{metric} ({severity}) opened in the week of {opened} {level}; {closing}.")
    noun = "alert" if len(alerts) == 1 else "alerts"
    return f"{len(alerts)} {noun} on demo_search in {_weeks(n_weeks)}: " + " ".join(sentences)


def _weeks(n: int) -> str:
    return "1 week" if n == 1 else f"{n} weeks"


@pytest.mark.parametrize("policy", sorted(WEEKS))
def test_the_page_leads_with_the_alerts_life_as_the_warehouse_holds_it(sites, browser, policy):
    warehouse, site = sites[policy]
    alerts, weeks = _stored(warehouse, policy)
    if policy == "default":  # the planted drop: one alert, opened on its first week, resolved on recovery
        assert [(str(a[3]), a[2], str(a[4])) for a in alerts] == [("2026-01-26", "resolved", "2026-02-09")]
    else:  # ticked in the drop's first week only: opened there, still open
        assert [(str(a[3]), a[2], a[4]) for a in alerts] == [("2026-01-26", "open", None)]
        assert [alpha for _, breached, _, _, alpha in weeks if breached] == [0.01 if policy == "alpha" else 0.05]
    open_page(browser, site / PAGES[policy], charts=True)
    (lead,) = [p.text for p in browser.find_elements("css selector", "p.verdict")]
    assert lead.startswith(_expected_lead(alerts, len(WEEKS[policy])))
    for _, _, _, opened, *_ in alerts:  # an alert opens on a breach its policy calls significant
        row = next(w for w in weeks if w[0] == str(opened))
        assert row[1] and row[2] and row[3] < row[4]
    assert "Demo data" in browser.find_element("css selector", "h1").text


@pytest.mark.parametrize("policy", sorted(WEEKS))
def test_each_weeks_point_and_test_follow_the_stored_verdicts_and_name_the_policy(sites, browser, policy):
    warehouse, site = sites[policy]
    alerts, weeks = _stored(warehouse, policy)
    open_page(browser, site / PAGES[policy], charts=True)
    specs = [json.loads(s) for s in browser.execute_script(_SPECS)]
    control = next(s for s in specs if s.get("title", "").startswith("mrr@10"))
    datasets = [rows for rows in control["datasets"].values() if rows]
    points = next(rows for rows in datasets if "status" in rows[0])
    marked = {(e["week"], e["event"]) for rows in datasets if "event" in rows[0] for e in rows}
    stored = {(str(a[3]), "opened") for a in alerts} | {(str(a[4]), "resolved") for a in alerts if a[4]}
    assert marked == stored  # the timeline marks each alert's opening and resolution weeks
    shown = {p["week"]: p["status"] for p in points}
    for week, breached, significant, _, alpha in weeks:
        word = "significant breach" if significant else "breach, not significant" if breached else "within threshold"
        assert shown[week] == word
        if breached:
            test = next(p["p_text"] for p in points if p["week"] == week)
            assert f"α = {alpha:g}" in test
            assert ("Benjamini-Hochberg-adjusted" if policy == "bh" else "Holm-adjusted") in test
    assert len(browser.find_elements("css selector", "div.chart .vega-actions")) == len(specs)


@pytest.mark.parametrize("policy", sorted(WEEKS))
def test_the_page_keeps_the_sites_format_policy(sites, policy):
    _, site = sites[policy]
    assert page_findings(site / PAGES[policy]) == []


def test_a_ticks_evaluation_page_links_its_systems_series_page(sites):
    from biaswh.dashboards.common.addresses import run_file

    warehouse, site = sites["default"]
    con = duckdb.connect(str(warehouse), read_only=True)
    try:
        (tick,) = con.execute(
            "select run_id from marts.dim_runs where run_kind = 'study' and run_name = 'demo_monitoring' and"
            " json_extract_string(parameters, '$.settings.monitoring.partition') = '2026-02-09'"
        ).fetchone()
    finally:
        con.close()
    html = (site / run_file(tick)).read_text(encoding="utf-8")
    assert "This run is the weekly tick of 2026-02-09" in html
    assert f'<a href="{PAGES["default"]}">demo_search</a>' in html
