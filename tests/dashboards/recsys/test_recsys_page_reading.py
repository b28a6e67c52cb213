"""The recommendation-bias page of the demo site read against the warehouse: the intro's rules, each
result set's counts, finding, labelled heatmap cells, condition intervals, the original's folded views
and the raw rows, the intro and the result set's headings and notes word for word, the Benjamini-Hochberg
rule, the run's own paper level and α planted on a copy, and the note before any result."""

from __future__ import annotations

import re

import duckdb
import pandas as pd
import pytest

from biaswh.dashboards.common.html import capturing_charts
from biaswh.dashboards.recsys import page
from tests.dashboards import page_reading
from tests.dashboards.page_reading import between, rendered, run_of, writable_copy

pytestmark = pytest.mark.dbt
site_fixture = page_reading.read_only_site  # the "warehouse" its tests take
RULE = "significant after Holm within the result set, α = 0.05"  # studies/demo_recsys.toml's policy
PUBLISHED = "as published (raw p &lt; 0.05)"
RESULT_SET = "synthetic_demo"
WHERE = "run_id = ? and result_source = 'computed' and result_set = 'synthetic_demo'"


def _page(con):
    run_id = run_of(con, "demo_recsys")
    with capturing_charts() as figures:
        html, tables = rendered(page.render, con, run_id)
    return run_id, html, tables, figures


def _rows_of(figure) -> list[dict]:
    return [row for values in figure.to_dict().get("datasets", {}).values() for row in values]


def test_the_intro_counts_finding_and_raw_rows_of_the_result_set(warehouse):
    con = warehouse
    run_id, html, tables, _ = _page(con)
    assert html.startswith('<p class="note">Each condition (dataset × model × prompt style) compares the posts')
    assert f"all count tests {RULE} (the family: every feature × condition of one recommendation run)." in html
    assert (
        f"min-max views, which stretch noise over 0-1, stay available below each result set, labelled {PUBLISHED}:"
        in html
    )
    n, features, adjusted, raw = con.execute(
        "select count(*), count(distinct feature), count(*) filter (where significant_adjusted),"
        f" count(*) filter (where p_value < 0.05) from marts.fct_recsys_pool_vs_recommended where {WHERE}",
        [run_id],
    ).fetchone()
    section = (
        f'<h2>{RESULT_SET} <span class="note">(SYNTHETIC data, simulated with injected biases; computed results)</span>'
        f"</h2><p>{n:,} tests over {features} features: {adjusted:,} {RULE}; {PUBLISHED}: {raw:,}."
        " Pool: non_recommended.</p>"
    )
    assert section in html
    counts = con.execute(
        "select feature, count(*) filter (where significant_adjusted), count(*)"
        " from marts.fct_recsys_pool_vs_recommended"
        f" where {WHERE} group by feature",
        [run_id],
    ).fetchall()
    assert all(k <= total / 2 for _, k, total in counts)  # the demo: no feature consistently favoured
    assert (
        f'{section}<p class="verdict"><b>No feature is consistently favoured</b>: none is significant after'
        f" adjustment in more than half of its conditions ({adjusted:,} of {n:,} tests {RULE}, result set"
        f" {RESULT_SET}).</p><h3>Fully aggregated</h3><div" in html
    )
    rows = con.execute(
        f"select {', '.join(page.RESULT_COLUMNS)} from marts.fct_recsys_pool_vs_recommended where {WHERE}"
        " order by feature, dataset, provider, prompt_style",
        [run_id],
    ).fetchall()
    (raw_table,) = [t for t in tables if t.columns == page.RESULT_COLUMNS]
    assert len(raw_table.display) == len(rows) and [r[:4] for r in raw_table.display] == [list(r[:4]) for r in rows]
    assert list(raw_table.data["p_value"]) == [r[page.RESULT_COLUMNS.index("p_value")] for r in rows]
    assert f"<details><summary>Raw results ({len(rows):,} rows)</summary><div" in html
    assert "</table>" in between(html, "Raw results (", "</details><h2>Provenance</h2>")
    assert html.count("<details>") == html.count("</details>")  # every folded block is closed
    assert "</script></div></details><h2>Provenance</h2>" in html  # the raw rows' download, then the provenance
    headings = re.findall(r"<h3>(.*?)</h3>", between(html, f"<h2>{RESULT_SET} ", "<h2>Provenance"))
    assert headings == [
        "Fully aggregated",
        "By prompt style, dataset and model",
        "One heatmap per prompt style",
        "Condition-level intervals",
    ]


def test_heatmap_cells_are_labelled_with_the_signed_bias_and_the_adjusted_marker(warehouse):
    con = warehouse
    run_id, html, _, figures = _page(con)
    levels = con.execute(
        "select level, feature, group_value, signed_normalized_bias_mean, normalized_bias_mean,"
        " coalesce(marker_adjusted, ''), coalesce(marker, ''), coalesce(share_significant_adjusted, 0),"
        f" coalesce(share_significant, 0) from marts.agg_recsys_bias where {WHERE}",
        [run_id],
    ).fetchall()
    signed = {f"{v:.2f}{m}" for level, _, _, v, _, m, _, _, _ in levels if level in ("prompt", "dataset", "model")} | {
        f"{v:.2f}{'*' if s > 0 else ''}" for level, _, _, v, _, _, _, s, _ in levels if level == "dataset_model_prompt"
    }
    published = {
        f"{v:.2f}{m}" for level, _, _, _, v, _, m, _, _ in levels if level in ("prompt", "dataset", "model")
    } | {
        f"{v:.2f}{'*' if s > 0 else ''}" for level, _, _, _, v, _, _, _, s in levels if level == "dataset_model_prompt"
    }
    drawn_signed = {r["signed_label"] for f in figures for r in _rows_of(f) if "signed_label" in r}
    drawn_published = {r["label"] for f in figures for r in _rows_of(f) if "label" in r and "signed_label" not in r}
    assert drawn_signed == signed and drawn_published >= published - {""}
    assert any(label.endswith("*") for label in published)  # raw p marks some cells the adjusted ones do not
    intervals = con.execute(
        "select count(*), count(*) filter (where significant_adjusted) from marts.fct_recsys_pool_vs_recommended"
        f" where {WHERE} and ci_low is not null and ci_high is not null",
        [run_id],
    ).fetchone()
    drawn = [r for f in figures for r in _rows_of(f) if "hedges_g" in r and "condition" in r]
    assert len(drawn) == intervals[0] and sum(r["significance"] == "significant" for r in drawn) == intervals[1]
    assert all(r["condition"].count(" · ") == 2 for r in drawn)
    prompts = con.execute(
        f"select count(distinct prompt_style) from marts.fct_recsys_pool_vs_recommended where {WHERE}", [run_id]
    ).fetchone()[0]
    folded = between(
        html, f"<details><summary>The original's min-max normalised views, {PUBLISHED}</summary>", "</details>"
    )
    assert folded.startswith('<p class="note">Min-max normalisation per feature stretches pure noise over 0-1')
    assert folded.count('class="chart"') == 1 + 3 + prompts
    assert between(html, "<h3>One heatmap per prompt style</h3>", "<h3>").count('class="chart"') == prompts


def test_the_lead_names_each_consistently_favoured_feature_and_its_direction():
    overall = pd.DataFrame(
        {"feature": ["length", "topic", "tone"], "bias_mean": [0.123456, -0.5, 0.01], "n_conditions": [4, 4, 3]}
    )
    lead = page._lead(overall, {"length": 3, "topic": 4, "tone": 1}, "the family")
    assert lead == (
        '<p class="verdict">2 of 3 features differ between recommended posts and the pool in most conditions'
        " (the family): <b>topic</b> (mean bias -0.5, significant in 4 of 4 conditions); <b>length</b> (mean bias"
        " 0.123, significant in 3 of 4 conditions). The other features show no consistent difference.</p>"
    )
    assert "No feature is consistently favoured" in page._lead(overall, {"length": 2}, "f")
    one = pd.DataFrame({"feature": ["a"], "bias_mean": [0.5], "n_conditions": [1]})
    assert "No feature is consistently favoured" in page._lead(one, {}, "f")  # no adjusted test counts as none
    assert page._label(0.5, "**") == "0.50**" and page._label(-0.125, None) == "-0.12" and page._label(1, "") == "1.00"


def test_benjamini_hochberg_on_the_results_and_no_synthetic_record_on_a_copy(demo_site):
    con = writable_copy(demo_site, "recsys")
    run_id = run_of(con, "demo_recsys")
    con.execute("update marts.fct_recsys_pool_vs_recommended set adjustment_method = 'bh'")
    html = page._result_set_section(con, run_id, "computed", RESULT_SET, synthetic=False)
    assert html.startswith(f'<h2>{RESULT_SET} <span class="note">(computed results)</span></h2><p>')
    assert "significant after Benjamini-Hochberg within the result set, α = 0.05; as published" in html
    assert page._synthetic_post_sets(con) == {RESULT_SET}
    con.execute(
        "update marts.fct_recsys_pool_vs_recommended set adjustment_method = null, status = 'error',"
        " pool_definition = null"
    )
    html = page._result_set_section(con, run_id, "computed", RESULT_SET, synthetic=False)
    n, raw = con.execute(
        "select count(*), count(*) filter (where p_value < 0.05) from marts.fct_recsys_pool_vs_recommended"
        f" where {WHERE}",
        [run_id],
    ).fetchone()
    assert (
        f"no adjusted p-values (run the recsys_bias job); {PUBLISHED}: {raw:,}. {n} computations failed (see the"
        " table).</p>" in html
    )  # no pool named
    assert "in more than half of its conditions (no adjusted p-values).</p><h3>Fully aggregated</h3>" in html
    con.execute("drop table marts.dim_runs")
    assert page._synthetic_post_sets(con) == set()


def test_before_any_result_the_page_says_what_to_run():
    assert page.render(duckdb.connect()) == (
        '<p class="note">No recommendation-bias results yet: <code>biaswh run studies/demo_recsys.toml</code>'
        " or <code>biaswh run studies/recsys_paper.toml</code>, then reload.</p>"
    )


def _skeleton(html: str) -> str:
    """The page with each chart (its div, spec and embedding script) as ``[chart]``."""
    return re.sub(r'<div id="chart-\d+" class="chart"></div>.*?vegaEmbed\(.*?</script>', "[chart]", html, flags=re.S)


def test_the_intro_and_the_result_sets_headings_notes_and_charts_word_for_word(warehouse):
    con = warehouse
    run_id, html, _, _ = _page(con)
    intro = html.split("<h3>The paper's figures", 1)[0]
    assert intro == (
        '<p class="note">Each condition (dataset × model × prompt style) compares the posts a model recommended'
        " with the pool it was shown. Numerical features: Cohen's d (recommended minus pool, pooled SD) and"
        " Welch's t-test; categorical and binary features: Cramér's V and the chi-square test (Yates' correction"
        " on 2×2 tables). The heatmaps colour the signed bias (bias / max |bias| per feature, -1 to 1: red, the"
        " model favours higher values or the category mix differs; blue, lower) on a diverging scale around 0,"
        " and grey out cells whose conditions are not mostly significant, so noise is not painted. The verdicts,"
        " the markers (* above 50 %, ** above 60 %, *** above 75 % of the conditions) and the grey cells all"
        f" count tests {RULE} (the family: every feature × condition of one recommendation run). The"
        " original's min-max views, which stretch noise over 0-1, stay available below each result set,"
        f" labelled {PUBLISHED}: their markers count raw p, as the paper did.</p>"
    )
    prompts = con.execute(
        f"select count(distinct prompt_style) from marts.fct_recsys_pool_vs_recommended where {WHERE}", [run_id]
    ).fetchone()[0]
    section = _skeleton(between(html, f"<h2>{RESULT_SET} ", "<details><summary>Raw results"))
    assert section.split("</p><h3>Fully aggregated</h3>", 1)[1] == (
        "[chart]<h3>By prompt style, dataset and model</h3>"
        + "[chart]" * 3
        + "<h3>One heatmap per prompt style</h3>"
        + "[chart]" * prompts
        + '<h3>Condition-level intervals</h3><p class="note">Hedges\' g of every condition with its 95%'
        " normal-approximation interval (numerical features; categorical and binary features have Cramér's V,"
        " without an interval in the mart).</p>[chart]"
        f"<details><summary>The original's min-max normalised views, {PUBLISHED}</summary>"
        '<p class="note">Min-max normalisation per feature stretches pure noise over 0-1: a feature with no'
        " significant condition can reach 1.00. Their markers count raw p below the paper's level, unadjusted:"
        " the verdicts above count only tests significant after the adjustment.</p>"
        + "[chart]" * (1 + 3 + prompts)
        + "</details>"
    )


def test_the_paper_level_is_the_runs_own_in_the_counts_and_the_folded_views(demo_site):
    con = writable_copy(demo_site, "recsys")
    run_id = run_of(con, "demo_recsys")
    con.execute(
        "update marts.dim_runs set run_parameters"
        " = json_merge_patch(run_parameters, '{\"recsys_published_alpha\": 0.1}') where run_id = ?",
        [run_id],
    )
    raw = con.execute(
        f"select count(*) filter (where p_value < 0.1) from marts.fct_recsys_pool_vs_recommended where {WHERE}",
        [run_id],
    ).fetchone()[0]
    con.execute(
        "update marts.dim_runs set parameters"
        """ = json_merge_patch(parameters, '{"settings": {"verdicts": {"alpha": 0.01}}}') where run_id = ?""",
        [run_id],
    )
    html = page._result_set_section(con, run_id, "computed", RESULT_SET, synthetic=True)
    assert f"; as published (raw p &lt; 0.1): {raw:,}. Pool: non_recommended.</p>" in html
    assert "significant after Holm within the result set, α = 0.01; as published" in html  # the run's policy
    assert "<details><summary>The original's min-max normalised views, as published (raw p &lt; 0.1)</summary>" in html
