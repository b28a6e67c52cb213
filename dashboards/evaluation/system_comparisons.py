"""The evaluation page's comparison of systems: every system of a drift series against every other.

Reads ``analysis.evaluation_system_comparisons`` (analysis/evaluation/comparisons.py): one row per
pair of systems (``<label>:<retriever>``, ours and runs written elsewhere) at the series' compare
metric and k, with the paired sign-flip test of the mean per-query difference, its BCa interval
and the study's adjustment (Holm or Benjamini-Hochberg); a pair with no query in common reads
"not testable".
The section leads with the finding: the highest system, called highest only when its paired test
against each other system says so (else the systems it is not distinguishable from are named), then
which pairs differ beyond noise, each difference taken higher − lower.
"""

from __future__ import annotations

import re
from collections import Counter

from biaswh.dashboards.common.format import fixed, floor_notes, interval, p_value, shared_decimals
from biaswh.dashboards.common.html import table, text
from biaswh.dashboards.common.queries import number, query_dicts, relation_exists
from biaswh.dashboards.common.verdict_policy import adjustment_name

METRIC_LABELS = {
    "ndcg": "nDCG",
    "mrr": "MRR",
    "map": "MAP",
    "recall": "Recall",
    "precision": "Precision",
    "f1": "F1",
    "hit_rate": "Hit rate",
    "r_precision": "R-precision",
}
COLUMNS = [
    "system_a",
    "system_b",
    "value_a",
    "value_b",
    "mean_difference",
    "difference_ci_95",
    "p_value",
    "p_adjusted",
    "is_significant",
    "n_paired_queries",
]


def _p(row: dict, column: str) -> str:
    if row.get("status") == "not testable":
        return "not testable"
    return p_value(row[column], floor=row.get("min_p") if column == "p_value" else None)


def _interval(low, high, like) -> str:
    return "–" if low is None else interval(low, high, like=like)


def _judged(row: dict) -> dict:
    """``row`` with ``p_adjusted`` and ``adjustment`` (a run analysed before they were stored has
    ``p_holm``: Holm's, as it was then)."""
    if "p_adjusted" in row and (row["p_adjusted"] is not None or row.get("p_holm") is None):
        return {**row, "adjustment": adjustment_name(row.get("adjustment"))}
    return {**row, "p_adjusted": row.get("p_holm"), "adjustment": "Holm"}


def _top_system(rows: list[dict], values: dict[str, float], measure: str) -> str:
    """The highest observed system, and whether its lead is more than noise: above each other system
    by its own paired test (significant under the study's adjustment), or not distinguishable from some."""
    best = max(values, key=lambda s: values[s])
    beaten = set()
    for row in rows:
        if best in (row["system_a"], row["system_b"]) and row["is_significant"]:
            other = row["system_b"] if row["system_a"] == best else row["system_a"]
            if (row["mean_difference"] > 0) == (row["system_a"] == best):
                beaten.add(other)
    close = sorted((s for s in values if s != best and s not in beaten), key=lambda s: (-values[s], s))
    value = text(number(values[best]))
    if not close:
        return (
            f"Highest {measure}: <b>{text(best)}</b> ({value}), above each of the other {len(values) - 1} systems"
            " beyond noise. "
        )
    named = ", ".join(f"{text(s)} ({text(number(values[s]))})" for s in close[:3])
    more = f" and {len(close) - 3} more" if len(close) > 3 else ""
    return (
        f"Highest observed {measure}: <b>{text(best)}</b> ({value}) of {len(values)} systems, not distinguishable"
        f" beyond noise from {len(close)}: {named}{more}. "
    )


def _higher_first(row: dict) -> tuple[str, str, float, float | None, float | None]:
    """(higher system, lower system, difference, its interval) with the difference taken higher − lower."""
    if row["mean_difference"] > 0:
        return row["system_a"], row["system_b"], row["mean_difference"], row["difference_ci_low"], row[
            "difference_ci_high"]  # fmt: skip
    low, high = row["difference_ci_low"], row["difference_ci_high"]
    flipped = (None, None) if low is None else (-high, -low)
    return row["system_b"], row["system_a"], -row["mean_difference"], *flipped


def _finding(rows: list[dict], measure: str) -> str:
    """One sentence or two: the best system (and whether its lead is tested beyond noise), then the
    significant pairs (largest difference first)."""
    values: dict[str, float] = {}
    for row in rows:
        values.setdefault(row["system_a"], row["value_a"])
        values.setdefault(row["system_b"], row["value_b"])
    lead = _top_system(rows, values, measure)
    significant = sorted((r for r in rows if r["is_significant"]), key=lambda r: -abs(r["mean_difference"]))
    tested = [r for r in rows if r["p_adjusted"] is not None]
    if not tested:
        return lead + "No pair of systems has a query in common: nothing is testable."
    adjustment = tested[0]["adjustment"]
    if not significant:
        smallest = min(tested, key=lambda r: r["p_adjusted"])
        return lead + (
            f"No pair of systems differs beyond noise after {adjustment}'s correction (smallest {adjustment}-adjusted"
            f" p {text(_p(smallest, 'p_adjusted'))}, {text(smallest['system_a'])} vs {text(smallest['system_b'])})."
        )
    shown = []
    for row in significant[:3]:
        higher, lower, size, low, high = _higher_first(row)
        shown.append(
            f"<b>{text(higher)}</b> over {text(lower)} by "
            f"{text(fixed(size, shared_decimals(size, low, high)))} "
            f"(95% CI {text(_interval(low, high, size))}, "
            f"{row['adjustment']}-adjusted p {text(_p(row, 'p_adjusted'))})"
        )
    more = f"; and {len(significant) - 3} more" if len(significant) > 3 else ""
    return lead + (f"{len(significant)} of {len(rows)} pairs differ beyond noise: " + "; ".join(shown) + more + ".")


def _without_seed(method: str) -> str:
    """A method's name without its seed (each pair has its own; the table's CSV holds them), its
    number of draws written as a count ("B = 10,000")."""
    method = re.sub(r", seed \d+", "", method)
    return re.sub(r"\bB=(\d+)", lambda draws: f"B = {int(draws.group(1)):,}", method)


def _methods(tested: list[dict]) -> str:
    """The tests of the pairs, each named once with how many pairs it decided (seeds left out)."""
    counts = Counter(_without_seed(r["test"] or "") for r in tested)
    if len(counts) == 1:
        return text(next(iter(counts)))
    return "; ".join(f"{text(name)} for {count:,} pairs" for name, count in sorted(counts.items())) or "–"


def comparison_section(con, series_run_id: str) -> str:
    """The "Systems compared" section of a series ('' when the series has no comparison rows)."""
    if not relation_exists(con, "analysis", "evaluation_system_comparisons"):
        return ""
    rows = query_dicts(
        con,
        """select * from analysis.evaluation_system_comparisons where run_id = ?
        order by is_significant desc, abs(mean_difference) desc, system_a, system_b""",
        [series_run_id],
    )
    if not rows:
        return ""
    stored, rows = rows, [_judged(r) for r in rows]  # the download holds the stored rows
    measure = f"{METRIC_LABELS.get(rows[0]['metric'], rows[0]['metric'])}@{rows[0]['k']}"
    tested = [r for r in rows if r["p_value"] is not None]
    ci_method = _without_seed((tested[0].get("ci_method") if tested else None) or "bootstrap")
    tests = _methods(tested)
    seeded = any("seed " in f"{r['test']} {r.get('ci_method')}" for r in tested)
    seeds = "; each pair is seeded on its own, its seeds in the CSV" if seeded else ""
    body = [
        [
            r["system_a"],
            r["system_b"],
            number(r["value_a"]),
            number(r["value_b"]),
            fixed(
                r["mean_difference"],
                shared_decimals(r["mean_difference"], r["difference_ci_low"], r["difference_ci_high"]),
            ),
            _interval(r["difference_ci_low"], r["difference_ci_high"], r["mean_difference"]),
            _p(r, "p_value"),
            _p(r, "p_adjusted"),
            "yes" if r["is_significant"] else "no",
            r["n_paired_queries"],
        ]
        for r in rows
    ]
    return (
        f"<h2>Systems compared ({text(measure)})</h2>"
        f'<p class="verdict">{_finding(rows, measure)}</p>'
        f'<p class="note">Every system of the series (<code>label:retriever</code>: our retrievers and runs '
        f"written elsewhere) against every other, on the queries both evaluated. Values A and B are the mean "
        f"{text(measure)}; the difference is A − B with a 95% interval ({text(ci_method)}); p is two-sided, "
        f"from {tests}{seeds}, {rows[0]['adjustment']}-adjusted over the {len(tested)} tested pairs at "
        f"alpha {text(number(rows[0]['alpha']))}; fewer than 6 paired queries are never flagged significant. "
        f"{text(floor_notes(tested))} Rows: significant first, then by the size of the difference. "
        "SQL: analysis.evaluation_system_comparisons.</p>" + table(COLUMNS, body, data=stored, css_class="tall")
    )
