"""Dashboard page: WEAT results with coverage first, effect sizes with intervals, per-word associations."""

from __future__ import annotations

import altair as alt
import duckdb

from biaswh.dashboards.common.findings import verdict_of
from biaswh.dashboards.common.format import MISSING, p_value, percent, plural
from biaswh.dashboards.common.html import chart, table, text
from biaswh.dashboards.common.provenance import provenance_section
from biaswh.dashboards.common.queries import query_dicts, relation_exists
from biaswh.dashboards.common.runs import study_names
from biaswh.dashboards.common.site import register_page
from biaswh.dashboards.common.verdict_policy import alpha_column
from biaswh.dashboards.weat.card import RESULTS, RUNS, weat_card
from biaswh.dashboards.weat.charts import effect_size_chart, word_association_chart
from biaswh.dashboards.weat.metric_sections import judged_policy, metrics_section
from biaswh.stats.effect_sizes import scale_note
from biaswh.stats.verdicts import alpha_text

ALERT = (
    '<div style="border:3px solid #cf222e;background:#ffebe9;padding:0.8rem 1rem;margin:1rem 0;'
    'font-size:1.05rem"><b>{title}</b>{body}</div>'
)


def _results(con, run_id: str):
    has_report = relation_exists(con, "analysis", "weat_interpretations")
    report_join = (
        "left join analysis.weat_interpretations i using (run_id, embedding, test_set, test)" if has_report else ""
    )
    report_columns = (
        "i.magnitude, i.bias_level, i.direction, i.p_adjusted, i.adjustment, i.family_size,"
        " coalesce(i.is_significant, false) as is_significant"
        if has_report
        else "null as magnitude, null as bias_level, null as direction, null as p_adjusted, null as adjustment,"
        " null as family_size, false as is_significant"
    )
    return con.execute(
        f"select w.embedding, w.test_set, w.test, t.test_title, w.status, w.status_reason, w.coverage,"
        f" w.n_target_x, w.n_target_y, w.n_attribute_a, w.n_attribute_b, w.effect_size, w.ci_low, w.ci_high,"
        f" w.p_value, w.p_method, w.n_permutations, w.match_policy, {report_columns}"
        f" from {RESULTS} w left join marts.dim_weat_tests t using (test_set, test) {report_join}"
        f" where w.run_id = ? order by w.embedding, w.test_set, length(w.test), w.test",
        [run_id],
    ).df()


def _alert(results) -> str:
    missing = results[results["status"] != "computed"]
    if missing.empty:
        return ""
    items = "".join(
        f"<li><b>{text(r.embedding)} / {text(r.test)}</b>: {text(r.status).upper()} — {text(r.status_reason)}</li>"
        for r in missing.itertuples()
    )
    return ALERT.format(
        title=text(f"{len(missing)} of {len(results)} tests were NOT computed"), body=f"<ul>{items}</ul>"
    )


def _number(value, spec: str) -> str:
    return "" if value is None or value != value else format(value, spec)


def _label(value, *, missing: str = MISSING) -> str:
    """A text cell; pandas gives NaN (not None) for missing strings."""
    return missing if value is None or (isinstance(value, float) and value != value) else str(value)


def _results_table(results) -> str:
    """One row per test, few enough columns that the reading has room."""
    rows = []
    for r in results.itertuples():
        computed = r.status == "computed"
        colour = "#1a7f37" if computed else "#cf222e"
        status = (
            f'<b style="color:{colour}">{text(r.status.upper() if not computed else r.status)}</b>'
            f"<br>{text(f'{r.coverage:.0%}')} of words found"
        )
        test = f"<b>{text(r.test)}</b><br>{text(r.test_title)}" if _label(r.test_title, missing="") else text(r.test)
        effect = (
            f"{_number(r.effect_size, '.2f')} [{_number(r.ci_low, '.2f')}, {_number(r.ci_high, '.2f')}]"
            if computed
            else "not computed"
        )
        adjusted = (
            f"<br>{text(_label(r.adjustment, missing='adjusted'))}: {text(p_value(r.p_adjusted))} "
            f"({text(plural(int(r.family_size), 'test'))} in {text(r.embedding)})"
            if computed and _label(r.adjustment, missing="")
            else ""
        )
        p_cell = (
            f'{text(p_value(r.p_value))}{adjusted}<br><span class="note">{text(r.p_method)}, '
            f"{r.n_permutations:,} partitions</span>"
            if computed
            else MISSING
        )
        level = (
            f"{_label(r.bias_level)} ({_label(r.magnitude)})"
            if computed and _label(r.magnitude, missing="")
            else _label(r.bias_level)
        )
        rows.append(
            [
                r.embedding,
                test,
                status,
                f"{r.n_target_x}/{r.n_target_y}/{r.n_attribute_a}/{r.n_attribute_b}",
                effect,
                p_cell,
                level,
                _label(r.direction, missing=""),
            ]
        )
    columns = [
        "embedding",
        "test",
        "status, coverage",
        "words X/Y/A/B",
        "d [95% CI]",
        "p (one-sided), adjusted",
        "bias level (magnitude)",
        "reading",
    ]
    return table(
        columns,
        rows,
        data=results,
        raw_columns=frozenset({"status, coverage", "test", "p (one-sided), adjusted"}),
        css_class="weat-results",
    )


def _coverage_table(con, run_id: str) -> str:
    rows = query_dicts(
        con,
        "select embedding, test, set_role, set_label, n_found, n_listed, coverage, n_used, n_exact, n_lower,"
        " n_casefold, n_excluded_by_definition, missing_words from marts.agg_weat_set_coverage"
        " where run_id = ? order by embedding, test_set, length(test), test, set_role",
        [run_id],
    )
    columns = ["embedding", "test", "set_role", "set_label", "found", "coverage", "used", "exact", "lower_case"]
    columns += ["case_folded", "excluded_by_definition", "missing_words"]
    shown = [
        [r["embedding"], r["test"], r["set_role"], r["set_label"], f"{r['n_found']} of {r['n_listed']}"]
        + [percent(r["coverage"]), r["n_used"], r["n_exact"], r["n_lower"], r["n_casefold"]]
        + [r["n_excluded_by_definition"], ", ".join(r["missing_words"] or [])]
        for r in rows
    ]
    return table(columns, shown, data=rows)


def _dropped_table(con, run_id: str) -> str:
    cursor = con.execute(
        "select embedding, test, set_role, word, match_kind, matched_word, drop_reason"
        " from marts.fct_weat_word_associations where run_id = ? and is_found and not is_used"
        " order by all limit 500",
        [run_id],
    )
    rows = [list(r) for r in cursor.fetchall()]
    if not rows:
        return "<p>No word left out: every found word was used.</p>"
    return table([d[0] for d in cursor.description], rows)


def charts(con: duckdb.DuckDBPyConnection, run_id: str, *, results=None) -> dict[str, alt.TopLevelMixin]:
    """The WEAT charts of one run (effect sizes, per-word associations), by name; no HTML written."""
    results = _results(con, run_id) if results is None else results
    computed = results[results["status"] == "computed"].copy()
    if computed.empty:
        return {}
    computed["test_label"] = computed["embedding"] + " / " + computed["test"]
    computed["significance"] = computed["is_significant"].map(
        lambda significant: "significant" if significant else "not significant"
    )
    columns = ["embedding", "test", "test_label", "effect_size", "ci_low", "ci_high", "p_value", "p_method"]
    found = {"effect_sizes": effect_size_chart(computed[[*columns, "significance", "bias_level"]])}
    words = con.execute(
        "select embedding || ' / ' || test as test_label, test, set_role, set_label, word, matched_word,"
        " association from marts.fct_weat_word_associations where run_id = ? and association is not null"
        " order by embedding, test_set, length(test), test, set_role, position",
        [run_id],
    ).df()
    if len(words):
        found["word_associations"] = word_association_chart(words)
    return found


def _run_section(con, study: str, run_id: str) -> str:
    results = _results(con, run_id)
    parts = [
        f"<h2>Study {text(study)}</h2>",
        verdict_of(weat_card(con, run_id)),
        f'<p class="note">Run <code>{text(run_id)}</code>; its provenance closes the section.</p>',
        _alert(results),
        "<h3>Results</h3>",
        _results_table(results),
    ]
    if relation_exists(con, "analysis", "weat_bias_level_counts"):
        cursor = con.execute(
            "select embedding, bias_level, n_tests from analysis.weat_bias_level_counts"
            " where run_id = ? order by embedding, severity_order",
            [run_id],
        )
        parts += [
            "<h3>Tests per bias level</h3>",
            table([d[0] for d in cursor.description], [list(r) for r in cursor.fetchall()]),
        ]
    parts.append(metrics_section(con, run_id))
    figures = charts(con, run_id, results=results)
    if "effect_sizes" in figures:
        parts += ["<h3>Effect sizes</h3>", chart(figures["effect_sizes"], name="weat_effect_sizes")]
    if "word_associations" in figures:
        parts += ["<h3>Per-word associations</h3>", chart(figures["word_associations"], name="weat_word_associations")]
    parts += [
        "<h3>Coverage of every word set</h3>",
        f'<p class="note">Match policy: {text(", ".join(sorted(set(results["match_policy"]))))}.'
        ' A set below the threshold makes its test "insufficient coverage".</p>',
        "<details><summary>Coverage table (one row per word set)</summary>",
        _coverage_table(con, run_id),
        "</details><details><summary>Found but not used</summary>",
        _dropped_table(con, run_id),
        "</details>",
        provenance_section(con, run_id, heading=f"Provenance of {study}", level=3),
    ]
    return "".join(parts)


def _interpretation_policies(con, run_id: str) -> list[dict]:
    if not relation_exists(con, "analysis", "weat_interpretations"):
        return []
    return query_dicts(
        con,
        f"select distinct adjustment, {alpha_column(con, 'analysis.weat_interpretations')} as alpha"
        " from analysis.weat_interpretations where run_id = ?",
        [run_id],
    )


@register_page(
    "weat.html",
    "WEAT: word-embedding association tests",
    runs=RUNS,
    studies=("studies/demo_weat.toml", "studies/weat_word2vec.toml"),
)
def render(con: duckdb.DuckDBPyConnection, run_id: str | None = None) -> str:
    """One WEAT study run's page: the finding first, then its tests, metrics and rankings."""
    found = RUNS.latest(con) if run_id is None else (run_id, 1)
    if found is None or not relation_exists(con, *RESULTS.split(".")):
        return (
            '<p class="note">No WEAT results in this warehouse yet: run a study with the '
            "<code>weat</code> job, e.g. <code>biaswh run studies/demo_weat.toml</code>.</p>"
        )
    run_id = found[0]
    adjustment, alpha = judged_policy(con, run_id, _interpretation_policies(con, run_id))
    intro = (
        '<p class="note">d &gt; 0: the X targets are closer to the'
        " A attributes than the Y targets are. p is one-sided (exact over all partitions, or seeded random"
        " partitions without replacement, p = (k+1)/(B+1)); the interval is a bootstrap over target words."
        " SD: sample SD (ddof=1) of s(w, A, B) over all target words. The family of a test is its embedding:"
        f" its p-values are adjusted within it (the study's verdict policy: {text(adjustment)}), and a"
        f" direction is read only when the adjusted p is below {text(alpha_text(alpha))} and the interval"
        " excludes 0. Bias level:"
        " a significant test's magnitude (high = large, moderate = medium, weak = small, minimal ="
        f" negligible; {scale_note('d')}).</p>"
    )
    return intro + _run_section(con, study_names(con, [run_id]).get(run_id, "unnamed study"), run_id)
