"""The findings card of the dialect retrieval bias study."""

from __future__ import annotations

import re

from biaswh.dashboards.common.findings import card, card_body, interval, pct
from biaswh.dashboards.common.format import fixed, p_value, points
from biaswh.dashboards.common.html import text
from biaswh.dashboards.common.queries import query_dicts
from biaswh.dashboards.common.runs import RunsIn
from biaswh.dashboards.common.verdict_policy import run_alpha
from biaswh.stats.verdicts import alpha_text, significance_count

# the dialect study runs: the card's and the page's (biaswh.dashboards.common.runs)
RUNS = RunsIn("analysis.dialect_paired_tests")
# the detectable gap where a gap that large can occur at the observed discordance, else null
# (dashboards/dialect/power_sentences.py says why)
REACHABLE_GAP = "case when detectable_gap_pp < 100 * discordance_rate then detectable_gap_pp end"


def _family(rows: list[dict]) -> tuple[str, str]:
    """The adjustment and the family as a sentence says them, e.g. ("Holm", "each retriever over k = 1, 10")."""
    adjustment = next((r.get("adjustment") for r in rows if r.get("adjustment")), None) or "Holm"
    ks = ", ".join(str(k) for k in sorted({r["k"] for r in rows}))
    return adjustment, f"each retriever over k = {ks}"


def headline_k(rows: list[dict]) -> int:
    """The k the verdict sentence cites (its best significant comparison, else its largest gap);
    the card's table shows this same k."""
    significant = [r for r in rows if r.get("is_significant")]
    if significant:
        return min(significant, key=lambda r: r["p_adjusted"])["k"]
    return max(rows, key=lambda r: abs(r["delta_pp"] or 0))["k"]


def dialect_finding(rows: list[dict], power: dict, *, alpha: float) -> str:
    """The lead sentence of one pair set: a direction only for a comparison significant under the
    verdict policy (``is_significant``); otherwise no evidence of a difference, with the largest gap,
    its interval and what the study could detect. It names the family and its size.

    ``rows`` are the highlighted-k rows of ``analysis.dialect_paired_tests``; ``power`` maps
    (retriever, k) to the detectable gap in points (at ``alpha``, the verdict policy's).
    """
    if not rows:
        return '<p class="verdict">No paired comparison at the highlighted k.</p>'
    adjustment, family = _family(rows)
    significant = [r for r in rows if r.get("is_significant")]
    count = significance_count(
        len(significant),
        len(rows),
        noun="highlighted comparisons",
        adjustment=adjustment,
        family=family,
        alpha=alpha,
    )
    if significant:
        best = min(significant, key=lambda r: r["p_adjusted"])
        direction = "higher" if best["delta_pp"] > 0 else "lower"
        sentence = (
            f"<b>{text(best['variant_a'])} recall is {direction} than {text(best['variant_b'])}</b> for "
            f"{text(best['retriever'])} at k = {best['k']}: {pct(best['recall_a'])} vs "
            f"{pct(best['recall_b'])} (difference {points(best['delta_pp'])} points, 95% CI "
            f"{interval(best['ci_low'], best['ci_high'], unit='pp')}, {text(adjustment)} p "
            f"{p_value(best['p_adjusted'])}); {text(count)}."
        )
    else:
        largest = max(rows, key=lambda r: abs(r["delta_pp"] or 0))
        gaps = [g for g in power.values() if g is not None]
        could = (
            f" A gap was detectable (80% power, {alpha_text(alpha)}) in {len(gaps)} of {len(power)} comparisons, "
            f"and only from {fixed(min(gaps), 1)} to {fixed(max(gaps), 1)} points up."
            if gaps
            else f" No gap this data allows was detectable with 80% power at {alpha_text(alpha)}."
        )
        sentence = (
            f"<b>No evidence of a difference</b> between {text(largest['variant_a'])} and "
            f"{text(largest['variant_b'])}: {text(count)}. The largest gap is {points(largest['delta_pp'])} "
            f"points ({text(largest['retriever'])}, k = {largest['k']}; 95% CI "
            f"{interval(largest['ci_low'], largest['ci_high'], unit='pp')})." + could
        )
    return f'<p class="verdict">{sentence}</p>'


def dialect_card(con, run_id: str | None = None, n_runs: int = 1) -> str | None:
    """The card of one study run (``run_id``; default: the latest run holding results)."""
    latest = (run_id, n_runs) if run_id else RUNS.latest(con)
    if latest is None:
        return None
    run_id, n_runs = latest
    # A run may compare several pair sets, each a family of its own with its section on the page: the
    # card reads the first (its rows, its power), and its caption says so when there are more.
    pair_sets = [
        p
        for (p,) in con.execute(
            """select distinct pair_set from analysis.dialect_paired_tests
            where run_id = ? and is_highlighted_k and retriever not like '%@%' order by pair_set""",
            [run_id],
        ).fetchall()
    ]
    if not pair_sets:
        return None
    rows = query_dicts(
        con,
        """select * from analysis.dialect_paired_tests
        where run_id = ? and pair_set = ? and is_highlighted_k and retriever not like '%@%' order by k, retriever""",
        [run_id, pair_sets[0]],
    )
    # One verdict for the card and the page's section of that pair set (:func:`dialect_finding`).
    power = {
        (r, k): g
        for r, k, g in con.execute(
            f"select retriever, k, {REACHABLE_GAP} from analysis.dialect_power where run_id = ? and pair_set = ?",
            [run_id, pair_sets[0]],
        ).fetchall()
    }
    finding = dialect_finding(rows, power, alpha=run_alpha(con, run_id, rows))
    verdict = re.search(r'<p class="verdict">(.*)</p>', finding, flags=re.S).group(1)
    k = headline_k(rows)
    adjustment, _ = _family(rows)
    headline = [
        [
            r["retriever"],
            pct(r["recall_a"]),
            pct(r["recall_b"]),
            points(r["delta_pp"]),
            interval(r["ci_low"], r["ci_high"], unit="pp"),
            p_value(r["p_adjusted"]),
            "yes" if r.get("is_significant") else "no",
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
        f"{adjustment} p",
        "significant",
    ]
    stored = [r for r in rows if r["k"] == k]
    caption = f"Recall@{k}" + (
        f", pair set {pair_sets[0]} (the first of {len(pair_sets)}; each has its section on the study's page)"
        if len(pair_sets) > 1
        else ""
    )
    return card_body(verdict, caption, columns, headline, run_id, n_runs, data=stored)


# Registered by a call, not a decorator: mutmut 3 leaves decorated functions unmutated, and the card's
# verdict and table are built here (docs/mutation-survivors-pages.md).
card("Dialect retrieval bias", "dialect.html", order=10, runs=RUNS)(dialect_card)
