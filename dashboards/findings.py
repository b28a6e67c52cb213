"""The findings overview (the site's index): one card per study type, its latest succeeded run first.

Each card leads with a verdict sentence that respects significance and power (a direction
only for a significant result; a null result says so, with its interval and what the study
could have detected), then the headline numbers with their intervals, then a link to the
study's page. Cards read marts and ``analysis.*`` only.
"""

from __future__ import annotations

import re
from typing import Callable

import duckdb

from dashboards.html import table, text
from dashboards.queries import number, query_dicts, relation_exists

ALPHA = 0.05
# (title, page) -> card body builder; the order is the index's order.
CARDS: list[tuple[str, str, Callable[[duckdb.DuckDBPyConnection], str | None]]] = []


def card(title: str, page_file: str):
    """Decorator: a findings card builder ``fn(con) -> HTML body or None`` (None: no such study yet)."""

    def decorate(fn):
        CARDS.append((title, page_file, fn))
        return fn

    return decorate


def _latest_run(con, table_name: str, run_column: str = "run_id") -> tuple[str, int] | None:
    """The latest succeeded run holding rows in ``table_name``, and how many runs hold rows."""
    schema, name = table_name.split(".")
    if not relation_exists(con, schema, name):
        return None
    row = con.execute(f"""select arg_max(t.{run_column}, r.started_at), count(distinct t.{run_column})
        from {table_name} t join marts.dim_runs r on r.run_id = t.{run_column}
        where r.run_status = 'succeeded'""").fetchone()
    return None if row[0] is None else (row[0], row[1])


def _pct(value) -> str:
    return "–" if value is None else f"{100 * value:.1f}%"


def _p(value, *, equals: bool = False) -> str:
    """A p-value: 3 significant digits, below 0.001 as "< 0.001" (a resampling p of 0 is not 0)."""
    if value is None:
        return "–"
    if value < 0.001:
        return "< 0.001"
    return ("= " if equals else "") + number(value)


def _interval(low, high, scale: float = 1.0, unit: str = "") -> str:
    if low is None or high is None:
        return "[–]"
    return f"[{number(low * scale)}{unit}, {number(high * scale)}{unit}]"


def dialect_finding(rows: list[dict], power: dict) -> str:
    """The lead sentence of one pair set: a direction only for a Holm-significant comparison; otherwise
    no evidence of a difference, with the largest gap, its interval and what the study could detect.

    ``rows`` are the highlighted-k rows of ``analysis.dialect_paired_tests``; ``power`` maps
    (retriever, k) to the detectable gap in points.
    """
    if not rows:
        return '<p class="verdict">No paired comparison at the highlighted k.</p>'
    significant = [r for r in rows if r["p_holm"] is not None and r["p_holm"] < ALPHA]
    if significant:
        best = min(significant, key=lambda r: r["p_holm"])
        direction = "higher" if best["delta_pp"] > 0 else "lower"
        sentence = (
            f"<b>{text(best['variant_a'])} recall is {direction} than {text(best['variant_b'])}</b> for "
            f"{text(best['retriever'])} at k = {best['k']}: {_pct(best['recall_a'])} vs "
            f"{_pct(best['recall_b'])} (difference {number(best['delta_pp'])} points, 95% CI "
            f"[{number(best['ci_low'])}, {number(best['ci_high'])}], Holm p {number(best['p_holm'])}); "
            f"{len(significant)} of {len(rows)} highlighted comparisons are significant."
        )
    else:
        largest = max(rows, key=lambda r: abs(r["delta_pp"] or 0))
        gaps = [g for g in power.values() if g is not None]
        could = (
            f" A gap was detectable (80% power) in {len(gaps)} of {len(power)} comparisons, and only from "
            f"{number(min(gaps))} to {number(max(gaps))} points up."
            if gaps
            else " No gap this data allows was detectable with 80% power."
        )
        sentence = (
            f"<b>No evidence of a difference</b> between {text(largest['variant_a'])} and "
            f"{text(largest['variant_b'])} in {len(rows)} highlighted comparisons after Holm correction: "
            f"the largest gap is {number(largest['delta_pp'])} points ({text(largest['retriever'])}, "
            f"k = {largest['k']}; 95% CI [{number(largest['ci_low'])}, {number(largest['ci_high'])}])." + could
        )
    return f'<p class="verdict">{sentence}</p>'


@card("Dialect retrieval bias", "dialect.html")
def dialect_card(con) -> str | None:
    latest = _latest_run(con, "analysis.dialect_paired_tests")
    if latest is None:
        return None
    run_id, n_runs = latest
    rows = query_dicts(
        con,
        """select * from analysis.dialect_paired_tests
        where run_id = ? and is_highlighted_k and retriever not like '%@%' order by k, retriever""",
        [run_id],
    )
    if not rows:
        return None
    # One verdict for the card and the page (:func:`dialect_finding`).
    power = {
        (r, k): g
        for r, k, g in con.execute(
            "select retriever, k, detectable_gap_pp from analysis.dialect_power where run_id = ?", [run_id]
        ).fetchall()
    }
    verdict = re.search(r'<p class="verdict">(.*)</p>', dialect_finding(rows, power), flags=re.S).group(1)
    ks = sorted({r["k"] for r in rows})
    k = ks[len(ks) // 2]
    headline = [
        [
            r["retriever"],
            _pct(r["recall_a"]),
            _pct(r["recall_b"]),
            number(r["delta_pp"]),
            _interval(r["ci_low"], r["ci_high"]),
            _p(r["p_holm"]),
        ]
        for r in rows
        if r["k"] == k
    ]
    columns = [
        "retriever",
        f"recall {rows[0]['variant_a']}",
        f"recall {rows[0]['variant_b']}",
        "Δ pp",
        "95% CI (pp)",
        "Holm p",
    ]
    return _body(verdict, f"Recall@{k}", columns, headline, run_id, n_runs)


@card("Retrieval evaluation and drift", "evaluation.html")
def evaluation_card(con) -> str | None:
    latest = _latest_run(con, "analysis.retrieval_alerts", "series_run_id")
    if latest is None:
        return None
    run_id, n_runs = latest
    alerts = query_dicts(
        con,
        """select * from analysis.retrieval_alerts where series_run_id = ?
        order by is_significant desc, case severity when 'high' then 0 when 'medium' then 1 else 2 end,
        abs(mean_change) desc nulls last""",
        [run_id],
    )
    significant = [a for a in alerts if a["is_significant"]]
    if significant:
        top = significant[0]
        verdict = (
            f"<b>{len(significant)} of {len(alerts)} threshold breaches are significant</b> against the "
            f"baseline; the most severe: {text(top['label'])}, {text(top['retriever'])} "
            f"{text(top['metric'])} {number(top['baseline_value'])} → {number(top['value'])} "
            f"(change 95% CI {_interval(top['change_ci_low'], top['change_ci_high'])}, "
            f"p {_p(top['p_value'], equals=True)})."
        )
    else:
        verdict = (
            f"<b>No significant drift</b>: {len(alerts)} threshold breach(es), none significant against the "
            "baseline (paired bootstrap)."
        )
    rows = [
        [
            a["label"],
            a["retriever"],
            a["metric"],
            number(a["baseline_value"]),
            number(a["value"]),
            _interval(a["change_ci_low"], a["change_ci_high"]),
            _p(a["p_value"]),
            a["severity"],
        ]
        for a in significant[:5]
    ]
    columns = ["run", "retriever", "metric", "baseline", "value", "change 95% CI", "p", "severity"]
    return _body(verdict, "Significant alerts (top 5)", columns, rows, run_id, n_runs)


@card("Word-embedding association (WEAT)", "weat.html")
def weat_card(con) -> str | None:
    latest = _latest_run(con, "marts.weat_results")
    if latest is None:
        return None
    run_id, n_runs = latest
    results = query_dicts(
        con,
        """select embedding, test, status, effect_size, ci_low, ci_high, p_value
        from marts.weat_results where run_id = ? order by abs(effect_size) desc nulls last""",
        [run_id],
    )
    computed = [r for r in results if r["status"] == "computed"]
    significant = [r for r in computed if r["p_value"] is not None and r["p_value"] < ALPHA]
    skipped = len(results) - len(computed)
    if significant:
        top = significant[0]
        verdict = (
            f"<b>{len(significant)} of {len(computed)} tests show a significant association</b> "
            f"(p &lt; {ALPHA}); strongest: {text(top['test'])} on {text(top['embedding'])}, d = "
            f"{number(top['effect_size'])} (95% CI {_interval(top['ci_low'], top['ci_high'])}, "
            f"p {_p(top['p_value'], equals=True)})."
        )
    else:
        verdict = f"<b>No evidence of an association</b> in any of the {len(computed)} computed tests (p ≥ {ALPHA})."
    if skipped:
        verdict += f" {skipped} test(s) not computed (insufficient coverage)."
    rows = [
        [r["test"], r["embedding"], number(r["effect_size"]), _interval(r["ci_low"], r["ci_high"]), _p(r["p_value"])]
        for r in computed[:5]
    ]
    return _body(verdict, "Largest effects", ["test", "embedding", "d", "95% CI", "p"], rows, run_id, n_runs)


@card("Silent bias of chain-of-thought answers", "silent_bias.html")
def silent_bias_card(con) -> str | None:
    latest = _latest_run(con, "analysis.silent_bias_rates")
    if latest is None:
        return None
    run_id, n_runs = latest
    rates = query_dicts(
        con,
        """select * from analysis.silent_bias_rates where run_id = ? and dimension = 'all'
        and silent_bias_rate is not null order by rule_set desc, silent_bias_rate desc""",
        [run_id],
    )
    if not rates:
        return _body(
            "<b>Undefined</b>: no model gave a biased answer, so no silent bias rate is defined.",
            "",
            [],
            [],
            run_id,
            n_runs,
        )
    top = rates[0]
    verdict = (
        f"<b>Highest silent bias rate: {text(top['model'])}</b> ({text(top['rule_set'])} rules): "
        f"{_pct(top['silent_bias_rate'])} of its biased answers never mention the feature "
        f"({top['n_silent']}/{top['n_biased']}; 95% Wilson CI {_interval(top['ci_low'], top['ci_high'], 100, '%')})."
    )
    rows = [
        [
            r["model"],
            r["rule_set"],
            _pct(r["silent_bias_rate"]),
            _interval(r["ci_low"], r["ci_high"], 100, "%"),
            f"{r['n_silent']}/{r['n_biased']}",
        ]
        for r in rates[:6]
    ]
    return _body(
        verdict, "Silent bias rate R_SB", ["model", "rule set", "R_SB", "95% CI", "silent/biased"], rows, run_id, n_runs
    )


@card("LLM recommendation bias", "recsys.html")
def recsys_card(con) -> str | None:
    latest = _latest_run(con, "marts.recsys_effect_sizes_aggregated")
    if latest is None:
        return None
    run_id, n_runs = latest
    rows = query_dicts(
        con,
        """select result_set, feature, r_squared_mean, n_significant, n_conditions, share_significant,
        share_significant_ci_low, share_significant_ci_high, marker
        from marts.recsys_effect_sizes_aggregated where run_id = ? and level = 'all'
        order by r_squared_mean desc nulls last, share_significant desc""",
        [run_id],
    )
    flagged = [r for r in rows if r["marker"]]
    if flagged:
        top = flagged[0]
        verdict = (
            f"<b>{len(flagged)} of {len(rows)} features shape what gets recommended</b> (significant in most "
            f"conditions); the largest effect: {text(top['feature'])}, mean R² {number(top['r_squared_mean'])}, "
            f"significant in {top['n_significant']} of {top['n_conditions']} conditions "
            f"({_pct(top['share_significant'])}, 95% CI "
            f"{_interval(top['share_significant_ci_low'], top['share_significant_ci_high'], 100, '%')})."
        )
    else:
        verdict = (
            "<b>No evidence that any feature shapes the recommendations in most conditions</b>: no feature is "
            "significant in more than half of its conditions."
        )
    table_rows = [
        [
            r["result_set"],
            r["feature"],
            number(r["r_squared_mean"]),
            f"{r['n_significant']}/{r['n_conditions']}",
            _pct(r["share_significant"]),
            _interval(r["share_significant_ci_low"], r["share_significant_ci_high"], 100, "%"),
            r["marker"] or "",
        ]
        for r in rows[:6]
    ]
    return _body(
        verdict,
        "Features by mean R² (Cohen's d → d²/(d²+4), Cramér's V → V²) over all conditions",
        ["result set", "feature", "mean R²", "significant", "share", "95% CI (Wilson)", "marker"],
        table_rows,
        run_id,
        n_runs,
    )


def _body(verdict: str, caption: str, columns: list[str], rows: list[list], run_id: str, n_runs: int) -> str:
    older = f'; {n_runs - 1} earlier run(s) on the <a href="runs.html">runs page</a>' if n_runs > 1 else ""
    numbers = (f'<p class="note">{text(caption)}</p>' + table(columns, rows)) if rows else ""
    return (
        f'<p class="verdict">{verdict}</p>{numbers}'
        f'<p class="note">Latest run <code>{text(run_id[:12])}</code>{older}.</p>'
    )


def findings_body(con: duckdb.DuckDBPyConnection) -> str:
    """The index: a card per study type that has a succeeded run, newest run each."""
    if not relation_exists(con, "marts", "dim_runs"):
        return '<p class="note">No study has run yet: <code>make demo</code> or <code>biaswh run STUDY.toml</code>.</p>'
    cards = []
    for title, page_file, build in CARDS:
        body = build(con)
        if body is not None:
            cards.append(
                f'<section class="card"><h2><a href="{text(page_file)}">{text(title)}</a></h2>{body}'
                f'<p><a href="{text(page_file)}">Evidence and details →</a></p></section>'
            )
    if not cards:
        return '<p class="note">No study has finished yet; see the <a href="runs.html">runs page</a>.</p>'
    return (
        '<p class="note">Each card: the latest succeeded run of a study type, its finding first. '
        'Every run with its provenance is on the <a href="runs.html">runs page</a>.</p>' + "".join(cards)
    )
