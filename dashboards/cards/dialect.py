"""The findings card of the dialect retrieval bias study."""

from __future__ import annotations

import re

from dashboards.findings import ALPHA, card, card_body, interval, latest_run, p_value, pct
from dashboards.html import text
from dashboards.queries import number, query_dicts


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
            f"{text(best['retriever'])} at k = {best['k']}: {pct(best['recall_a'])} vs "
            f"{pct(best['recall_b'])} (difference {number(best['delta_pp'])} points, 95% CI "
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
    latest = latest_run(con, "analysis.dialect_paired_tests")
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
            pct(r["recall_a"]),
            pct(r["recall_b"]),
            number(r["delta_pp"]),
            interval(r["ci_low"], r["ci_high"]),
            p_value(r["p_holm"]),
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
    return card_body(verdict, f"Recall@{k}", columns, headline, run_id, n_runs)
