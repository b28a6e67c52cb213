"""The WEAT page's embedding-metric sections: one table of metrics per embedding and test, the word-set
sensitivity of d, and the ranking of embeddings with intervals (used by ``dashboards/weat/page.py``)."""

from __future__ import annotations

import json

from biaswh.dashboards.common.format import MISSING, fixed, interval, is_missing, p_value, shared_decimals
from biaswh.dashboards.common.html import table, text
from biaswh.dashboards.common.queries import query_dicts, relation_exists
from biaswh.dashboards.common.verdict_policy import recorded_policy
from biaswh.stats.verdicts import alpha_text

# (metric, attribute set) -> column header, in the table's order.
METRIC_COLUMNS = {
    ("rnd", "attribute_a"): "RND A",
    ("rnd", "attribute_b"): "RND B",
    ("mac", "attribute_a"): "MAC X-Y, A",
    ("mac", "attribute_b"): "MAC X-Y, B",
    ("ect", "attribute_a"): "ECT A",
    ("ect", "attribute_b"): "ECT B",
    ("ripa", "attribute_a"): "RIPA A",
    ("ripa", "attribute_b"): "RIPA B",
    ("ripa_pairwise", "attribute_a"): "RIPA pairwise A",
    ("ripa_pairwise", "attribute_b"): "RIPA pairwise B",
    ("rnsb", "both"): "RNSB KL (sign)",
}
NOTE = (
    '<p class="note">Each cell: value [bootstrap interval over the target words], the permutation p adjusted by'
    " {policy} within the embedding's tests of that metric and attribute set, and its verdict (significant:"
    " adjusted p below {alpha}; the pooled MAC and d over word sets have no test). RND: negative = the attribute"
    " set is closer to X (unit vectors unless noted). MAC:"
    " cosine distance of X minus Y (negative = X closer). ECT: rank coherence, 1 = no bias. RIPA: positive ="
    " the attribute set leans to X. RNSB: KL from uniform with the direction of the gap in P(B); its second"
    " interval is the spread over seeded 80/20 splits. d: WEAT d with [bootstrap over the words of all four"
    " sets] and the leave-one-word-out range. Conventions and departures from WEFE: docs/studies/weat.md.</p>"
)


def judged_policy(con, run_id: str, rows: list[dict]) -> tuple[str, float]:
    """The adjustment and alpha the run's verdict rows were judged by (``rows`` with ``adjustment`` and
    ``alpha``), else the policy the run's config declared: the page says what its verdicts used."""
    judged = {(r["adjustment"], r["alpha"]) for r in rows if r.get("adjustment") and r.get("alpha") is not None}
    if len(judged) == 1:
        return next(iter(judged))
    policy = recorded_policy(con, run_id)
    return policy.name, policy.alpha


def _interval(low, high, like=None, places=None) -> str:
    """Bounds with the decimals of their estimate (``like``) or ``places``; '' when the run computed none."""
    return interval(low, high, like=like, places=places) if not (is_missing(low) or is_missing(high)) else ""


def _cell(row: dict) -> str:
    if row["status"] != "computed":
        return text(row["status"])
    value = row["value"]
    places = shared_decimals(value, row["ci_low"], row["ci_high"])
    parts = [f"<b>{fixed(value, places)}</b> {_interval(row['ci_low'], row['ci_high'], places=places)}"]
    if row["metric"] == "rnsb":
        parts[0] += {1: " (X→A)", -1: " (X→B)"}.get(row["weat_sign"], "")
        parts.append(f"splits {_interval(row['spread_low'], row['spread_high'], places=places)}")
    if row["p_adjusted"] is not None:
        verdict = "significant" if row["is_significant"] else "no evidence"
        parts.append(f"p<sub>{text(row['adjustment'])}</sub> {text(p_value(row['p_adjusted']))}, {verdict}")
    elif row["p_holm"] is not None:  # a run from before the verdict policy judged the metrics: Holm at the job
        parts.append(f"p<sub>Holm</sub> {text(p_value(row['p_holm']))}")
    return "<br>".join(text(p) if "<" not in p else p for p in parts)


def _rows(con, run_id: str) -> list[dict]:
    judged = relation_exists(con, "analysis", "weat_metric_verdicts")
    verdicts = (
        "v.p_adjusted, v.adjustment, v.alpha, v.is_significant"
        if judged
        else "null::double as p_adjusted, null as adjustment, null::double as alpha, null::boolean as is_significant"
    )
    joined = (
        " left join analysis.weat_metric_verdicts as v using (run_id, embedding, test_set, test, metric, attribute_set)"
        if judged
        else ""
    )
    cursor = con.execute(
        "select m.embedding, m.test_set, m.test, m.metric, m.attribute_set, m.status, m.value, m.ci_low, m.ci_high,"
        f" m.spread_low, m.spread_high, m.p_holm, {verdicts}, m.weat_sign, m.vectors, m.details"
        f" from marts.fct_weat_metrics as m{joined} where m.run_id = ?"
        " order by m.embedding, m.test_set, length(m.test), m.test",
        [run_id],
    )
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, r)) for r in cursor.fetchall()]


def metrics_table(rows: list[dict]) -> str:
    """One row per (embedding, test): d with its word-set sensitivity, then every metric's cell."""
    by_test: dict[tuple, dict] = {}
    for row in rows:
        by_test.setdefault((row["embedding"], row["test"]), {})[(row["metric"], row["attribute_set"])] = row
    present = [key for key in METRIC_COLUMNS if any(key in cells for cells in by_test.values())]
    body = []
    for (embedding, test), cells in by_test.items():
        d = cells.get(("d_word_sets", "both"))
        sensitivity = (
            f"<b>{d['value']:.2f}</b> {_interval(d['ci_low'], d['ci_high'], places=2)}<br>"
            f"leave one out {_interval(d['spread_low'], d['spread_high'], places=2)}"
            if d and d["status"] == "computed"
            else text(d["status"] if d else MISSING)
        )
        body.append([embedding, test, sensitivity, *(_cell(cells[k]) if k in cells else MISSING for k in present)])
    headers = ["embedding", "test", "d [word-set bootstrap]", *(METRIC_COLUMNS[k] for k in present)]
    return table(headers, body, data=rows, raw_columns=frozenset(headers[2:]), css_class="weat-metrics")


def influential_words_table(rows: list[dict]) -> str:
    """Per test, the words whose removal moves d most."""
    body, stored = [], []
    for row in rows:
        if row["metric"] == "d_word_sets" and row["status"] == "computed":
            words = json.loads(row["details"])["most_influential"]
            listed = ", ".join(f"{w['word']} ({w['set_role']}: d {w['d_without']:.2f})" for w in words[:3])
            body.append([row["embedding"], row["test"], f"{row['value']:.2f}", listed])
            stored += [
                {"embedding": row["embedding"], "test": row["test"], "d": row["value"]}
                | {"word": w["word"], "set_role": w["set_role"], "d_without": w["d_without"]}
                for w in words[:3]
            ]
    return table(["embedding", "test", "d", "without this word, d becomes"], body, data=stored)


def ranking_table(con, run_id: str) -> str:
    """Embeddings ranked per test and metric, with the places their intervals allow."""
    if not relation_exists(con, "analysis", "weat_embedding_rankings"):
        return '<p class="note">No ranking yet: add the weat_report analysis step.</p>'
    found = query_dicts(
        con,
        "select test, metric, attribute_set, embedding, rank, rank_best, rank_worst, magnitude, magnitude_low,"
        " magnitude_high, distinguishable_from_next from analysis.weat_embedding_rankings"
        " where run_id = ? and n_embeddings > 1 order by test_set, length(test), test, metric, attribute_set, rank",
        [run_id],
    )
    if not found:
        return '<p class="note">One embedding in this run: nothing to rank.</p>'
    columns = ["test", "metric", "attribute_set", "embedding", "rank", "possible_places", "magnitude"]
    columns += ["magnitude_interval", "distinguishable_from_next"]
    rows = [
        [r["test"], r["metric"], r["attribute_set"], r["embedding"], r["rank"], f"{r['rank_best']}-{r['rank_worst']}"]
        + [fixed(r["magnitude"], 3), interval(r["magnitude_low"], r["magnitude_high"], places=3)]
        + [{True: "yes", False: "no"}.get(r["distinguishable_from_next"], "")]
        for r in found
    ]
    return table(columns, rows, data=found)


def metrics_section(con, run_id: str) -> str:
    """The page section, or nothing when the run has no metric rows."""
    if not relation_exists(con, "marts", "fct_weat_metrics"):
        return ""
    rows = _rows(con, run_id)
    if not rows:
        return ""
    vectors = sorted({r["vectors"] for r in rows if r["vectors"] and r["metric"] in ("rnd", "ect", "ripa", "rnsb")})
    adjustment, alpha = judged_policy(con, run_id, rows)
    return "".join(
        [
            "<h3>Embedding metrics beside WEAT (RND, MAC, ECT, RIPA, RNSB) and the word-set sensitivity of d</h3>",
            NOTE.format(policy=text(adjustment), alpha=text(alpha_text(alpha))),
            f'<p class="note">Vectors for RND, ECT, RIPA and RNSB: {text(", ".join(vectors) or MISSING)}.</p>',
            metrics_table(rows),
            "<h3>Most influential words of d</h3>",
            influential_words_table(rows),
            "<h3>Ranking of embeddings (larger magnitude = more biased)</h3>",
            '<p class="note">possible_places: the places the intervals allow; distinguishable_from_next: the'
            " next embedding's whole interval lies below this one's (a conservative test).</p>",
            ranking_table(con, run_id),
        ]
    )
