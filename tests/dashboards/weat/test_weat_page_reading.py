"""The WEAT page of the demo site read against the warehouse: what the reader reads, the run asked
for, the verdict policy its rows were judged by (α = 0.01 and Benjamini-Hochberg planted on a copy),
every test's row, the alert on tests not computed, the coverage and the words left out."""

from __future__ import annotations

import html as html_module
import re

import duckdb
import pandas as pd
import pytest

from biaswh.dashboards.common.findings import verdict_of
from biaswh.dashboards.common.format import p_value
from biaswh.dashboards.common.provenance import provenance_section
from biaswh.dashboards.weat import page
from biaswh.dashboards.weat.card import weat_card
from biaswh.dashboards.weat.metric_sections import metrics_section
from tests.dashboards import page_reading
from tests.dashboards.page_reading import between, rendered, run_of, writable_copy

pytestmark = pytest.mark.dbt
site_fixture = page_reading.read_only_site  # the "warehouse" its tests take

RESULTS_SQL = """
    select w.embedding, w.test_set, w.test, t.test_title, w.status, w.status_reason, w.coverage, w.n_target_x,
        w.n_target_y, w.n_attribute_a, w.n_attribute_b, w.effect_size, w.ci_low, w.ci_high, w.p_value, w.p_method,
        w.n_permutations, w.match_policy, i.magnitude, i.bias_level, i.direction, i.p_adjusted, i.adjustment,
        i.family_size
    from marts.fct_weat_results w
    join marts.dim_weat_tests t on t.test_set = w.test_set and t.test = w.test
    left join analysis.weat_interpretations i
        on i.run_id = w.run_id and i.embedding = w.embedding and i.test_set = w.test_set and i.test = w.test
    where w.run_id = ?
"""


def _site(warehouse):
    """The page rendered in the test's own body: mutmut credits a function only to the test whose call
    ran it, never to a fixture's setup."""
    run_id = run_of(warehouse, "demo_weat")
    html, tables = rendered(page.render, warehouse, run_id)
    return warehouse, run_id, html, {tuple(t.columns): t for t in tables}


def _expected_rows(con, run_id) -> list[dict]:
    rows = con.execute(RESULTS_SQL, [run_id]).df().to_dict("records")
    return sorted(rows, key=lambda r: (r["embedding"], r["test_set"], len(r["test"]), r["test"]))


def test_the_page_leads_with_the_policy_then_the_cards_verdict_of_the_run_asked_for(warehouse):
    con, run_id, html, _ = _site(warehouse)
    (adjustment, alpha), *others = con.execute(
        "select distinct adjustment, alpha from analysis.weat_interpretations"
        " where run_id = ? and adjustment is not null",
        [run_id],
    ).fetchall()
    assert not others and (adjustment, alpha) == ("Holm", 0.05)  # the demo config's policy
    assert html.startswith('<p class="note">d &gt; 0: the X targets are closer to the A attributes')
    assert (
        f"(the study's verdict policy: {adjustment}), and a direction is read only when the adjusted p is below"
        " α = 0.05 and the interval excludes 0." in html
    )
    verdict = verdict_of(weat_card(con, run_id))
    assert verdict.startswith('<p class="verdict">')
    assert (
        f"</p><h2>Study demo_weat</h2>{verdict}"
        f'<p class="note">Run <code>{run_id}</code>; its provenance closes the section.</p><div style=' in html
    )
    for heading in re.findall(r"<h3>(.*?)</h3>", html):  # each heading between two elements, nothing around it
        assert re.search(rf"><h3>{re.escape(heading)}</h3><", html), heading
    assert html.endswith(provenance_section(con, run_id, heading="Provenance of demo_weat", level=3))
    headings = re.findall(r"<(h[23])>(.*?)</h[23]>", html)
    own = [h for h in headings if not h[1].startswith(("Embedding metrics", "Most influential", "Ranking of"))]
    assert own == [
        ("h2", "Study demo_weat"),
        ("h3", "Results"),
        ("h3", "Tests per bias level"),
        ("h3", "Effect sizes"),
        ("h3", "Per-word associations"),
        ("h3", "Coverage of every word set"),
        ("h3", "Provenance of demo_weat"),
    ]


def test_the_alert_names_every_test_not_computed_with_its_reason(warehouse):
    con, run_id, html, _ = _site(warehouse)
    rows = _expected_rows(con, run_id)
    missing = [r for r in rows if r["status"] != "computed"]
    assert missing and len(missing) < len(rows)
    items = "".join(
        f"<li><b>{r['embedding']} / {r['test']}</b>: {r['status'].upper()}"
        f" — {html_module.escape(r['status_reason'])}</li>"
        for r in missing
    )
    assert f"<b>{len(missing)} of {len(rows)} tests were NOT computed</b><ul>{items}</ul></div><h3>Results</h3>" in html
    assert page._alert(pd.DataFrame({"status": ["computed"], "embedding": ["e"], "test": ["t"]})) == ""


def test_every_test_has_its_row_with_interval_adjusted_p_family_and_reading(warehouse):
    con, run_id, html, tables = _site(warehouse)
    columns = ("embedding", "test", "status, coverage", "words X/Y/A/B", "d [95% CI]")
    columns += ("p (one-sided), adjusted", "bias level (magnitude)", "reading")
    table = tables[columns]
    rows = _expected_rows(con, run_id)
    assert len(table.display) == len(rows)
    computed_per_embedding = pd.Series([r["embedding"] for r in rows if r["status"] == "computed"]).value_counts()
    for shown, r in zip(table.display, rows):
        computed = r["status"] == "computed"
        assert shown[0] == r["embedding"]
        assert shown[1] == f"{r['test']} {r['test_title']}"
        status = "computed" if computed else r["status"].upper()
        assert shown[2] == f"{status} {r['coverage']:.0%} of words found"
        assert shown[3] == f"{r['n_target_x']}/{r['n_target_y']}/{r['n_attribute_a']}/{r['n_attribute_b']}"
        if computed:
            assert shown[4] == f"{r['effect_size']:.2f} [{r['ci_low']:.2f}, {r['ci_high']:.2f}]"
            family = int(computed_per_embedding[r["embedding"]])
            assert r["family_size"] == family
            assert shown[5] == (
                f"{p_value(r['p_value'])} Holm: {p_value(r['p_adjusted'])} ({family} tests in {r['embedding']})"
                f" {r['p_method']}, {r['n_permutations']:,} partitions"
            )
            assert shown[6] == f"{r['bias_level']} ({r['magnitude']})"
        else:
            assert shown[4:7] == ["not computed", "–", r["bias_level"]]
        assert shown[7] == r["direction"]
    body = between(html, '<table class="weat-results">', "</table>")
    first = rows[0]
    assert f"<td><b>{first['test']}</b><br>{html_module.escape(first['test_title'])}</td>" in body
    assert '<td><b style="color:#1a7f37">computed</b><br>100% of words found</td>' in body
    assert '<td><b style="color:#cf222e">INSUFFICIENT COVERAGE</b><br>0% of words found</td>' in body
    assert "<br>Holm: &lt; 0.001 (5 tests in demo_synthetic)<br>" in body
    assert '<span class="note">randomised, 100,000 partitions</span>' in body
    # the download holds the stored values, not the display text
    stored = table.data
    assert list(stored["p_value"].dropna()) == [r["p_value"] for r in rows if r["p_value"] == r["p_value"]]
    assert list(stored["test_set"]) == [r["test_set"] for r in rows]


def test_bias_level_counts_coverage_and_charts_come_from_the_run(warehouse):
    con, run_id, html, tables = _site(warehouse)
    counts = con.execute(
        "select embedding, bias_level, n_tests from analysis.weat_bias_level_counts where run_id = ?"
        " order by embedding, severity_order",
        [run_id],
    ).fetchall()
    assert tables[("embedding", "bias_level", "n_tests")].display == [[e, b, f"{n:,}"] for e, b, n in counts]
    coverage = con.execute(
        "select embedding, test, set_role, set_label, n_found, n_listed, coverage, n_used, n_exact, n_lower,"
        " n_casefold, n_excluded_by_definition, missing_words from marts.agg_weat_set_coverage where run_id = ?"
        " order by embedding, test_set, length(test), test, set_role",
        [run_id],
    ).fetchall()
    columns = ("embedding", "test", "set_role", "set_label", "found", "coverage", "used", "exact", "lower_case")
    table = tables[(*columns, "case_folded", "excluded_by_definition", "missing_words")]
    assert any(row[-1] for row in coverage) and any(not row[-1] for row in coverage)
    assert table.display == [
        [
            e,
            t,
            role,
            label,
            f"{found} of {listed}",
            f"{100 * share:.1f}%",
            *(f"{n:,}" for n in numbers),
            ", ".join(words or []),
        ]
        for e, t, role, label, found, listed, share, *numbers, words in coverage
    ]
    assert list(table.data["n_listed"]) == [row[5] for row in coverage]  # stored values, one column each
    metrics = metrics_section(con, run_id)
    assert metrics.startswith("<h3>Embedding metrics beside WEAT") and f"</div>{metrics}<h3>Effect sizes</h3>" in html
    assert (
        '<p class="note">Match policy: casefold. A set below the threshold makes its test "insufficient coverage".</p>'
        in html
    )
    assert (
        "</p><details><summary>Coverage table (one row per word set)</summary><div" in html
        and "</div></details><details><summary>Found but not used</summary>"
        "<p>No word left out: every found word was used.</p></details><h3>Provenance of demo_weat</h3>"
        in html
    )
    assert '"downloadFileName": "weat_effect_sizes"' in html and '"downloadFileName": "weat_word_associations"' in html
    figures = page.charts(con, run_id)
    assert set(figures) == {"effect_sizes", "word_associations"}
    results = _expected_rows(con, run_id)
    significant = dict(
        con.execute(
            "select embedding || ' / ' || test, is_significant from analysis.weat_interpretations where run_id = ?",
            [run_id],
        ).fetchall()
    )
    drawn = [
        v for values in figures["effect_sizes"].to_dict()["datasets"].values() for v in values if "effect_size" in v
    ]
    assert sorted(v["test_label"] for v in drawn) == sorted(
        f"{r['embedding']} / {r['test']}" for r in results if r["status"] == "computed"
    )
    assert all(
        v["significance"] == ("significant" if significant[v["test_label"]] else "not significant") for v in drawn
    )
    assert {v["significance"] for v in drawn} == {"significant", "not significant"}
    words = figures["word_associations"].to_dict()["datasets"]
    n_words = con.execute(
        "select count(*) from marts.fct_weat_word_associations where run_id = ? and association is not null", [run_id]
    ).fetchone()[0]
    assert sum(len(values) for values in words.values()) == n_words
    everything = pd.DataFrame(page._results(con, run_id))
    assert page.charts(con, run_id, results=everything[everything["status"] != "computed"]) == {}


def test_alpha_001_and_benjamini_hochberg_on_the_rows_are_what_the_page_states(demo_site):
    con = writable_copy(demo_site, "weat")
    run_id = run_of(con, "demo_weat")
    con.execute("update analysis.weat_interpretations set alpha = 0.01, adjustment = 'Benjamini-Hochberg'")
    assert page._interpretation_policies(con, run_id) == [{"adjustment": "Benjamini-Hochberg", "alpha": 0.01}]
    html = page.render(con, run_id)
    assert (
        "(the study's verdict policy: Benjamini-Hochberg), and a direction is read only when the adjusted p is"
        " below α = 0.01 and the interval excludes 0." in html
    )
    assert "<br>Benjamini-Hochberg: &lt; 0.001 (5 tests in demo_synthetic)<br>" in html and "Holm:" not in html
    con.execute("delete from marts.dim_runs where run_id = ?", [run_id])
    assert "<h2>Study unnamed study</h2>" in page.render(con, run_id)


def test_without_the_interpretations_the_results_carry_no_verdict_and_the_config_names_the_policy(demo_site):
    con = writable_copy(demo_site, "weat")
    run_id = run_of(con, "demo_weat")
    con.execute("drop table analysis.weat_interpretations")
    results = page._results(con, run_id)
    assert (
        len(results)
        == con.execute("select count(*) from marts.fct_weat_results where run_id = ?", [run_id]).fetchone()[0]
    )
    assert (
        results[["magnitude", "bias_level", "direction", "p_adjusted", "adjustment", "family_size"]].isna().all().all()
    )
    assert not results["is_significant"].any()
    assert page._interpretation_policies(con, run_id) == []
    # the charts (biaswh's API draws them too) read the results alone: nothing drawn as significant
    drawn = page.charts(con, run_id)["effect_sizes"].to_dict()["datasets"].values()
    assert {v["significance"] for values in drawn for v in values if "effect_size" in v} == {"not significant"}


def test_a_run_asked_for_in_a_warehouse_without_weat_results_gets_the_note():
    con = duckdb.connect()
    assert page.render(con, "some-run").startswith('<p class="note">No WEAT results in this warehouse yet')
    con.execute("create schema marts")
    con.execute("create table marts.fct_weat_results (run_id varchar)")
    assert "No WEAT results" not in _safe_render(con)


def _safe_render(con) -> str:
    try:
        return page.render(con, "some-run")
    except duckdb.Error as error:  # past the note: the page reads on and finds the rest missing
        return str(error)


def test_found_but_unused_words_are_listed_with_why():
    con = duckdb.connect()
    con.execute("create schema marts")
    con.execute(
        "create table marts.fct_weat_word_associations as select * from (values"
        " ('r', 'e', 't', 'target_x', 'rose', 'exact', 'rose', 'balanced out', true, false),"
        " ('r', 'e', 't', 'target_x', 'tulip', 'lower', 'Tulip', 'balanced out', true, false),"
        " ('r', 'e', 't', 'target_y', 'ant', 'exact', 'ant', null, true, true),"
        " ('r', 'e', 't', 'target_y', 'gnat', null, null, 'not found', false, false),"
        " ('other', 'e', 't', 'target_y', 'bee', 'exact', 'bee', 'balanced out', true, false))"
        " as t(run_id, embedding, test, set_role, word, match_kind, matched_word, drop_reason, is_found, is_used)"
    )
    shown = page._dropped_table(con, "r")
    headers = [re.sub(r"<span.*", "", h) for h in re.findall(r"<th>(.*?)</th>", shown)]
    assert headers == ["embedding", "test", "set role", "word", "match kind", "matched word", "drop reason"]
    cells = re.findall(r"<tr>(.*?)</tr>", between(shown, "<tbody>", "</tbody>"))
    assert cells == [
        "<td>e</td><td>t</td><td>target_x</td><td>rose</td><td>exact</td><td>rose</td><td>balanced out</td>",
        "<td>e</td><td>t</td><td>target_x</td><td>tulip</td><td>lower</td><td>Tulip</td><td>balanced out</td>",
    ]
    assert page._dropped_table(con, "none") == "<p>No word left out: every found word was used.</p>"


def test_cells_of_missing_values_and_a_test_without_a_title():
    assert page._number(None, ".2f") == "" and page._number(float("nan"), ".2f") == ""
    assert page._number(1.234, ".2f") == "1.23"
    assert page._label(None) == "–" and page._label(float("nan")) == "–" and page._label(None, missing="") == ""
    assert page._label(0.5) == "0.5" and page._label("high") == "high"
    results = pd.DataFrame(
        [
            {
                **dict.fromkeys(("test_set", "status_reason", "magnitude", "bias_level", "direction", "p_adjusted")),
                **dict.fromkeys(("adjustment", "family_size", "effect_size", "ci_low", "ci_high", "p_value")),
                "embedding": "e",
                "test": "<t>",
                "test_title": None,
                "status": "computed",
                "coverage": 0.5,
                "n_target_x": 2,
                "n_target_y": 3,
                "n_attribute_a": 4,
                "n_attribute_b": 5,
                "p_method": "exact",
                "n_permutations": 10,
                "match_policy": "exact",
                "is_significant": False,
            }
        ]
    )
    body = between(page._results_table(results), "<tbody>", "</tbody>")
    assert body.startswith("<tr><td>e</td><td>&lt;t&gt;</td><td>")
    assert '<td> [, ]</td><td>–<br><span class="note">exact, 10 partitions</span></td><td>–</td><td></td></tr>' in body


def test_the_latest_weat_run_is_the_one_shown_by_default(warehouse):
    con, run_id, html, _ = _site(warehouse)
    assert re.sub(r"chart-\d+", "", rendered(page.render, con)[0]) == re.sub(r"chart-\d+", "", html)


def test_an_older_run_asked_for_leads_with_its_own_verdict(demo_site):
    con = writable_copy(demo_site, "weat")
    run_id = run_of(con, "demo_weat")
    # a newer run of the study in which no test is significant
    for table in ("marts.fct_weat_results", "analysis.weat_interpretations", "marts.agg_weat_set_coverage"):
        con.execute(
            f"insert into {table} by name select * replace ('newer' as run_id) from {table} where run_id = ?", [run_id]
        )
    con.execute("update analysis.weat_interpretations set is_significant = false where run_id = 'newer'")
    con.execute(
        "insert into marts.dim_runs by name select * replace ('newer' as run_id, started_at + interval 1 hour as"
        " started_at) from marts.dim_runs where run_id = ?",
        [run_id],
    )
    older, newer = verdict_of(weat_card(con, run_id)), verdict_of(weat_card(con, "newer"))
    assert older != newer and newer.startswith('<p class="verdict"><b>No evidence of an association</b>: 0 of 5')
    # a word found but left out, in the older run only
    con.execute(
        "update marts.fct_weat_word_associations set is_used = false, drop_reason = 'planted <drop>'"
        " where run_id = ? and word = 'rose' and test = 'weat1'",
        [run_id],
    )
    html = page.render(con, run_id)
    assert older in html and newer not in html
    dropped = between(html, "<summary>Found but not used</summary>", "</details>")
    assert dropped.count("<td>planted &lt;drop&gt;</td>") == 2  # rose in weat1 on both embeddings
    assert newer in page.render(con)  # the newest run by default
