"""The dialect page of the demo site read against the warehouse: the run asked for, one section per
pair set led by its finding, the power, paired, rank and discordant tables row by row, the error
examples, the charts, the provenance, and the policy its rows were judged by (α = 0.01 and
Benjamini-Hochberg planted on a copy)."""

from __future__ import annotations

import html as html_module
import re

import pytest

from biaswh.dashboards.common.format import fixed, interval, points, sample_size, shared_decimals
from biaswh.dashboards.common.queries import query_dicts
from biaswh.dashboards.common.verdict_policy import policy_phrase
from biaswh.dashboards.dialect import page
from biaswh.dashboards.dialect.card import REACHABLE_GAP, dialect_finding
from biaswh.dashboards.dialect.parity import parity_section
from biaswh.dashboards.dialect.power_sentences import power_sentences
from tests.dashboards import page_reading
from tests.dashboards.page_reading import between, rendered, run_of, writable_copy

pytestmark = pytest.mark.dbt
site_fixture = page_reading.read_only_site  # the "warehouse" its tests take
PAIR_SET = "dialect_pairs_demo"  # studies/demo.toml's one pair set
HIGHLIGHTED = "run_id = ? and pair_set = ? and is_highlighted_k"


def _site(warehouse):
    """The page rendered in the test's own body: mutmut credits a function only to the test whose call
    ran it, never to a fixture's setup."""
    run_id = run_of(warehouse, "demo")
    html, tables = rendered(page.render, warehouse, run_id)
    return warehouse, run_id, html, tables


def _tests(con, run_id):
    return query_dicts(
        con,
        f"select * from analysis.dialect_paired_tests where {HIGHLIGHTED} order by k, retriever",
        [run_id, PAIR_SET],
    )


def _power_rows(con, run_id):
    return query_dicts(
        con,
        "select * from analysis.dialect_power where run_id = ? and pair_set = ? order by retriever, variant_b, k",
        [run_id, PAIR_SET],
    )


def _table(tables, first_columns):
    found = [t for t in tables if t.columns[: len(first_columns)] == list(first_columns)]
    assert found, first_columns
    return found


def test_the_run_asked_for_gets_a_section_per_pair_set_led_by_its_finding(warehouse):
    con, run_id, html, _ = _site(warehouse)
    tests = _tests(con, run_id)
    power = {
        (r, k): g
        for r, k, g in con.execute(
            f"select retriever, k, {REACHABLE_GAP} from analysis.dialect_power where run_id = ? and pair_set = ?",
            [run_id, PAIR_SET],
        ).fetchall()
    }
    finding = dialect_finding(tests, power, alpha=0.05)
    assert finding.startswith('<p class="verdict">')
    assert html.startswith(
        f'<p class="note">Study run <code>{run_id}</code>; one section per pair set'
        f' (<a href="#pair-set-{PAIR_SET}">{PAIR_SET}</a>), each leading with its finding, then the evidence.</p>'
        f'<section id="pair-set-{PAIR_SET}"><h2>Pair set {PAIR_SET}</h2>{finding}<h3>What this study can detect</h3>'
    )
    headings = re.findall(r"<h[234]>(.*?)</h[234]>", between(html, "<section", "</section>"))
    ks = sorted({r["k"] for r in tests})
    assert ks == [1, 3, 5]
    assert headings == [
        f"Pair set {PAIR_SET}",
        "What this study can detect",
        "Paired comparison at the highlighted k",
        "Recall@k",
        "Where the gold document lands",
        "Rank of the gold document: Wilcoxon signed-rank",
        "Discordant pairs",
        *(f"k = {k}" for k in ks),
        f"Error examples (first {len(_errors(con, run_id))})",
    ]
    assert f"</script></div><h3>Discordant pairs</h3><h4>k = {ks[0]}</h4><div" in html
    for k in ks[1:]:
        assert f"</script></div><h4>k = {k}</h4><div" in html
    assert "</script></div><h3>Error examples (first" in html
    assert html.endswith(page._provenance(con, run_id)) and f"</section>{parity_section(con)}<h2>Provenance" in html
    assert page.render(con, None) == '<p class="note">No dialect study has been analysed in this warehouse yet.</p>'


def test_the_power_table_gives_each_ks_reachable_gap_and_the_pairs_a_2_point_gap_needs(warehouse):
    con, run_id, html, tables = _site(warehouse)
    rows = _power_rows(con, run_id)
    ks = sorted({r["k"] for r in rows})
    (table,) = _table(tables, ["pair_set", "retriever", "comparison", "n_pairs"])
    assert table.columns == ["pair_set", "retriever", "comparison", "n_pairs", *(f"k = {k}" for k in ks)] + [
        "pairs_needed_for_2pp"
    ]
    retrievers = sorted({r["retriever"] for r in rows})
    assert [row[1] for row in table.display] == retrievers
    for shown, retriever in zip(table.display, retrievers):
        own = {r["k"]: r for r in rows if r["retriever"] == retriever}
        assert shown[:4] == [PAIR_SET, retriever, "sae vs aae", str(own[ks[0]]["n_pairs"])]
        assert shown[4:-1] == [f"none ({own[k]['n_discordant']})" for k in ks]  # no demo gap is reachable
        assert shown[-1] == sample_size(own[ks[-1]]["pairs_needed_for_2pp"])
    assert list(table.data["detectable_gap_pp"].isna()) == [r["detectable_gap_pp"] is None for r in rows]
    planning = power_sentences(max(r["n_pairs"] for r in rows), alpha=0.05, power=rows[0]["power"])
    assert planning and (
        "a two-sided exact McNemar test at α = 0.05 (the verdict policy's) detects with 80% power" in html
    )
    assert (
        '<h3>What this study can detect</h3><p class="note">Per highlighted k: the smallest recall gap in points'
        " (detectable_gap_pp) a two-sided exact McNemar test at α = 0.05 (the verdict policy's) detects with 80%"
        ' power, with the discordant pairs it rests on (n_discordant) in brackets; "none": no gap the observed'
        " discordance allows is detectable. Pairs a 2-point gap would need at the discordance of the largest k"
        f" (Connor 1987).</p>{planning}<div" in html
    )


def test_the_paired_rank_and_discordant_tables_hold_the_runs_rows(warehouse):
    con, run_id, html, tables = _site(warehouse)
    tests = _tests(con, run_id)
    (summary,) = _table(tables, ["pair_set", "retriever", "k", "comparison"])
    assert summary.display == [
        [PAIR_SET, r["retriever"], str(r["k"]), f"{r['variant_a']} vs {r['variant_b']}", str(r["n_pairs"])]
        + [f"{100 * r['recall_a']:.1f}%", f"{100 * r['recall_b']:.1f}%", points(r["delta_pp"])]
        + [interval(r["ci_low"], r["ci_high"], unit="points"), str(r["only_a"]), str(r["only_b"])]
        + [summary.display[i][11], r["adjustment"], str(r["family_size"]), summary.display[i][14]]
        + ["yes" if r["is_significant"] else "no"]
        for i, r in enumerate(tests)
    ]
    assert summary.columns == ["pair_set", "retriever", "k", "comparison", "n_pairs", "recall_a", "recall_b"] + [
        "delta_pp",
        "ci_95_pp",
        "only_a",
        "only_b",
        "p_exact",
        "adjustment",
        "family_size",
        "p_adjusted",
        "is_significant",
    ]
    assert list(summary.data["p_exact"]) == [r["p_exact"] for r in tests]
    assert list(summary.data["ci_low"]) == [r["ci_low"] for r in tests]  # the download: stored bounds
    policy = policy_phrase("Holm", 3, 0.05, family="each retriever over the highlighted k")
    assert (
        '</script></div><h3>Paired comparison at the highlighted k</h3><p class="note">McNemar three ways on the'
        " discordant pairs (only_a: only variant A found the gold document within k; mid-p and χ² are under"
        " Discordant pairs); p_adjusted adjusts p_exact within each retriever over the highlighted k (the family,"
        f" of family_size tests), by the study's verdict policy ({policy}); is_significant: p_adjusted &lt; alpha."
        " The interval of the recall difference, in points, is Newcombe's hybrid score interval for paired"
        " proportions (method 10, 1998): unlike a bootstrap it does not collapse onto 0 when few pairs are"
        " discordant, so it agrees with the exact test there.</p><div" in html
    )
    ranks = query_dicts(
        con,
        "select * from analysis.dialect_rank_tests where run_id = ? and pair_set = ? order by retriever, policy",
        [run_id, PAIR_SET],
    )
    (rank_table,) = _table(tables, ["pair_set", "retriever", "comparison", "test_variant"])
    assert rank_table.columns == ["pair_set", "retriever", "comparison", "test_variant", "n_pairs", "n_used"] + [
        "statistic",
        "p_value",
        "rank_biserial",
        "ci_95",
        "note",
    ]
    assert list(rank_table.data["ci_low"]) == [r["ci_low"] for r in ranks]  # the download: stored bounds
    assert len(rank_table.display) == len(ranks) > 0
    for shown, r in zip(rank_table.display, ranks):
        assert shown[:4] == [PAIR_SET, r["retriever"], f"{r['variant_a']} vs {r['variant_b']}", r["test_variant"]]
        places = shared_decimals(r["rank_biserial"], r["ci_low"], r["ci_high"])
        assert shown[8:] == [
            fixed(r["rank_biserial"], places),
            interval(r["ci_low"], r["ci_high"], like=r["rank_biserial"]),
            r["note"],
        ]
    assert (
        '</script><h3>Rank of the gold document: Wilcoxon signed-rank</h3><p class="note">Recommended policy:'
        " a miss counts as depth + 1 and zero differences are kept (Pratt). The original policy drops pairs with a"
        " miss and zero differences; compare the n each used. Rank-biserial r &gt; 0: variant A ranks the gold"
        " document lower (worse).</p><div" in html
    )
    discordant = _table(tables, ["pair_set", "retriever", "both_hit"])
    assert len(discordant) == 3
    for k, table in zip((1, 3, 5), discordant):
        own = [r for r in tests if r["k"] == k]
        assert [row[1:6] for row in table.display] == [
            [r["retriever"], str(r["both_hit"]), str(r["only_a"]), str(r["only_b"]), str(r["neither"])] for r in own
        ]
        assert list(table.data["p_chi2_cc"]) == [r["p_chi2_cc"] for r in own]


def _errors(con, run_id):
    return con.execute(
        "select pair_id, k, retriever from marts.fct_dialect_error_examples where run_id = ? and pair_set = ?"
        " and retriever in (select retriever from analysis.dialect_paired_tests where run_id = ?)",
        [run_id, PAIR_SET, run_id],
    ).fetchall()[:60]


def test_error_examples_and_provenance(warehouse):
    con, run_id, html, tables = _site(warehouse)
    errors = _errors(con, run_id)
    (table,) = _table(tables, ["pair_set", "retriever", "k", "pair_id"])
    assert sorted((int(row[3]), int(row[2]), row[1]) for row in table.display) == sorted(
        (int(p), k, r) for p, k, r in errors
    )
    order = [(int(row[2]), row[1], int(row[3])) for row in table.display]
    assert order == sorted(order)
    assert (
        f'<h3>Error examples (first {len(errors)})</h3><p class="note">Pairs where exactly one variant found'
        " the gold document within k.</p><div" in html
    )
    code, started = con.execute(
        "select code_version, started_at from marts.dim_runs where run_id = ?", [run_id]
    ).fetchone()
    inputs = con.execute(
        "select v.dataset, v.source_name, v.source_version, v.source_path, v.source_sha256"
        " from marts.dim_source_versions v where exists (select 1 from marts.dim_runs r, unnest(r.inputs) as u(i)"
        " where r.run_id = ? and i.dataset = v.dataset and i.name = v.source_name and i.version = v.source_version)"
        " order by all",
        [run_id],
    ).fetchall()
    assert inputs
    items = "".join(
        f'<li>{d} <b>{n}</b> version {v}: <span class="mono">{html_module.escape(p)}</span>'
        f" sha256 <code>{s}</code></li>"
        for d, n, v, p, s in inputs
    )
    assert html.endswith(
        f"<h2>Provenance</h2><p>Study run <code>{run_id}</code>, started {started}, code version <code>{code}</code>."
        f" Inputs it read:</p><ul>{items}</ul>"
    )


def test_charts_are_drawn_from_the_pair_sets_recall_and_gold_ranks(warehouse):
    con, run_id, html, _ = _site(warehouse)
    figures = page.charts(con, run_id)
    assert set(figures) == {f"{PAIR_SET}:recall_at_k", f"{PAIR_SET}:gold_ranks"}
    recall = con.execute(
        "select count(*) from marts.agg_dialect_recall_at_k where run_id = ? and pair_set = ?"
        " and retriever = retriever_family",
        [run_id, PAIR_SET],
    ).fetchone()[0]
    drawn = figures[f"{PAIR_SET}:recall_at_k"].to_dict()
    assert sum(len(v) for v in drawn["datasets"].values()) >= recall > 0
    ranks = con.execute(
        "select retriever, variant, rank_of_gold, is_found_within_depth from marts.fct_dialect_gold_ranks"
        " where run_id = ? and pair_set = ? and retriever = retriever_family",
        [run_id, PAIR_SET],
    ).fetchall()
    edges = [(1, "1"), (5, "2-5"), (10, "6-10"), (20, "11-20"), (50, "21-50")]
    expected: dict[tuple, int] = {}
    for retriever, variant, rank, found in ranks:
        label = "not found" if not found else next((name for top, name in edges if rank <= top), "51+")
        expected[(retriever, variant, label)] = expected.get((retriever, variant, label), 0) + 1
    bars = [v for values in figures[f"{PAIR_SET}:gold_ranks"].to_dict()["datasets"].values() for v in values]
    assert {(b["retriever"], b["variant"], b["rank_bin"]): b["n_queries"] for b in bars} == expected
    assert (
        f'"downloadFileName": "recall_at_k_{PAIR_SET}"' in html
        and f'"downloadFileName": "gold_ranks_{PAIR_SET}"' in html
    )
    assert "</script></div><h3>Recall@k</h3><div id=" in html
    assert (
        '<p class="note">Bands: Wilson 95% intervals per variant; k from 1 to the run\'s depth; the y axis is fitted'
        " to the data and their bands.</p><h3>Where the gold document lands</h3>" in html
    )


def test_alpha_001_benjamini_hochberg_a_reachable_gap_and_no_sources_on_a_copy(demo_site):
    con = writable_copy(demo_site, "dialect")
    run_id = run_of(con, "demo")
    con.execute("update analysis.dialect_paired_tests set alpha = 0.01, adjustment = 'Benjamini-Hochberg'")
    con.execute(
        "update analysis.dialect_power set detectable_gap_pp = 4.4, discordance_rate = 0.5"
        " where retriever = 'bm25' and k = 3"
    )
    con.execute("delete from analysis.dialect_power where retriever = 'dense' and k = 5")
    con.execute("delete from marts.fct_dialect_error_examples")
    con.execute("drop table marts.dim_source_versions")
    html, tables = rendered(page.render, con, run_id)
    policy = policy_phrase("Benjamini-Hochberg", 3, 0.01, family="each retriever over the highlighted k")
    assert f"by the study's verdict policy ({policy}); is_significant" in html
    assert "a two-sided exact McNemar test at α = 0.01 (the verdict policy's)" in html
    (power,) = _table(tables, ["pair_set", "retriever", "comparison", "n_pairs"])
    by_retriever = {row[1]: row for row in power.display}
    assert by_retriever["bm25"][4:7] == ["none (3)", "4.4 (1)", "none (0)"]
    assert by_retriever["dense"][6] == "–"
    assert "<h3>Error examples (first 0)</h3>" in html and "<p>No such rows.</p></section>" in html
    assert html.endswith(
        f"<h2>Provenance</h2><p>Study run <code>{run_id}</code>; run <code>biaswh build</code> to list its inputs.</p>"
    )
    # rows judged before verdict rows stored their alpha: the run's config names it (0.05)
    con.execute("update analysis.dialect_paired_tests set alpha = null")
    policy = policy_phrase("Benjamini-Hochberg", 3, 0.05, family="each retriever over the highlighted k")
    assert f"by the study's verdict policy ({policy}); is_significant" in page.render(con, run_id)
    con.execute("update marts.dim_runs set run_parameters = '{\"verdicts_alpha\": 0.01}' where run_id = ?", [run_id])
    policy = policy_phrase("Benjamini-Hochberg", 3, 0.01, family="each retriever over the highlighted k")
    assert f"by the study's verdict policy ({policy}); is_significant" in page.render(con, run_id)
    # rows without an adjustment or family size: the page names no adjustment over every highlighted test
    con.execute("update analysis.dialect_paired_tests set adjustment = null, family_size = null")
    policy = policy_phrase(None, 15, 0.01, family="each retriever over the highlighted k")
    assert f"by the study's verdict policy ({policy}); is_significant" in page.render(con, run_id)
    # the recall axis runs to the run's depth even where the recall rows stop short of it
    depth = con.execute("select max(depth) from marts.fct_dialect_gold_ranks where run_id = ?", [run_id]).fetchone()[0]
    con.execute("delete from marts.agg_dialect_recall_at_k where k > 5")
    band = page.charts(con, run_id)[f"{PAIR_SET}:recall_at_k"].to_dict()["spec"]["layer"][0]
    assert band["encoding"]["x"]["scale"]["domain"] == [1, depth] and depth > 5


def test_planted_rank_decimals_planning_power_and_no_power_rows_on_a_copy(demo_site):
    con = writable_copy(demo_site, "dialect")
    run_id = run_of(con, "demo")
    # an estimate gets the decimals it shares with the wider bound: -0.0123 [-0.5, 0.0467] reads -0.012
    con.execute(
        "update analysis.dialect_rank_tests set rank_biserial = 0.0123,"
        " ci_low = case when policy = 'original' then -0.5 else -0.0467 end,"
        " ci_high = case when policy = 'original' then 0.0467 else 0.5 end where retriever = 'bm25'"
    )
    # the bounds take the estimate's decimals, even where they hold more (an estimate outside them)
    con.execute(
        "update analysis.dialect_rank_tests set rank_biserial = 0.123, ci_low = 0.0467, ci_high = 0.05"
        " where retriever = 'dense' and policy = 'original'"
    )
    con.execute("update analysis.dialect_power set power = 0.9")
    html, tables = rendered(page.render, con, run_id)
    (ranks,) = _table(tables, ["pair_set", "retriever", "comparison", "test_variant"])
    shown = {(row[1], row[8], row[9]) for row in ranks.display if row[1] == "bm25"}
    assert shown == {("bm25", "0.012", "[-0.500, 0.047]"), ("bm25", "0.012", "[-0.047, 0.500]")}
    assert ["0.123", "[0.047, 0.050]"] in [row[8:10] for row in ranks.display if row[1] == "dense"]
    assert power_sentences(42, alpha=0.05, power=0.9) in html and power_sentences(42, alpha=0.05) not in html
    con.execute("delete from analysis.dialect_power where not (retriever = 'bm25' and k = 1)")
    (power,) = _table(rendered(page.render, con, run_id)[1], ["pair_set", "retriever", "comparison", "n_pairs"])
    assert power.display == [
        [PAIR_SET, "bm25", "sae vs aae", "42", "none (3)", sample_size(power.data["pairs_needed_for_2pp"][0])]
    ]
    con.execute("delete from analysis.dialect_power")
    html, tables = rendered(page.render, con, run_id)
    (power,) = _table(tables, ["pair_set", "retriever", "comparison", "n_pairs"])
    assert power.display == [] and power.columns[-1] == "pairs_needed_for_2pp"
    assert "(Connor 1987).</p><div" in html
    assert page._provenance(con, "no such run").startswith(
        "<h2>Provenance</h2><p>Study run <code>no such run</code>, started , code version <code></code>."
        " Inputs it read:</p><ul></ul>"
    )
