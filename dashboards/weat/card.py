"""The findings card of the WEAT study: tests counted by the verdict policy, within each embedding."""

from __future__ import annotations

from biaswh.dashboards.common.findings import card, card_body, interval
from biaswh.dashboards.common.format import p_value, plural
from biaswh.dashboards.common.html import text
from biaswh.dashboards.common.queries import number, query_dicts, relation_exists
from biaswh.dashboards.common.runs import RunsIn
from biaswh.dashboards.common.verdict_policy import alpha_column, run_alpha
from biaswh.stats.effect_sizes import magnitude
from biaswh.stats.verdicts import significance_count

# The WEAT mart the card and the page read (named once: dbt may rename it).
RESULTS = "marts.fct_weat_results"
# the WEAT study runs: the card's and the page's (biaswh.dashboards.common.runs)
RUNS = RunsIn("analysis.weat_interpretations")


def _word_set_note(con, run_id: str, top: dict) -> str:
    """The word-set sensitivity of the strongest d (fct_weat_metrics), when the run computed it."""
    if not relation_exists(con, "marts", "fct_weat_metrics"):
        return ""
    row = con.execute(
        "select ci_low, ci_high from marts.fct_weat_metrics where run_id = ? and embedding = ? and test = ?"
        " and metric = 'd_word_sets' and status = 'computed'",
        [run_id, top["embedding"], top["test"]],
    ).fetchone()
    return f" Resampling the words of all four sets moves d within {interval(*row)}." if row else ""


def weat_verdict(results: list[dict], *, alpha: float) -> str:
    """The card's sentence over one run's tests (rows of ``analysis.weat_interpretations`` with the
    interval): per embedding, how many tests are significant after the adjustment within it, at ``alpha``."""
    computed = [r for r in results if r["status"] == "computed"]
    significant = [r for r in computed if r["is_significant"]]
    embeddings = sorted({r["embedding"] for r in computed})
    counts = "; ".join(
        significance_count(
            sum(r["is_significant"] for r in computed if r["embedding"] == embedding),
            sum(r["embedding"] == embedding for r in computed),
            noun="WEAT tests",
            adjustment=next(r["adjustment"] for r in computed if r["embedding"] == embedding) or "Holm",
            family=f"embedding {embedding}",
            alpha=alpha,
        )
        for embedding in embeddings
    )
    if significant:
        top = max(significant, key=lambda r: abs(r["effect_size"]))
        verdict = (
            f"<b>{text(counts)}</b>; strongest: {text(top['test'])} on {text(top['embedding'])}, d = "
            f"{number(top['effect_size'])} ({magnitude(top['effect_size'], statistic='d')}; 95% CI "
            f"{interval(top['ci_low'], top['ci_high'], like=top['effect_size'])}, "
            f"adjusted p {text(p_value(top['p_adjusted'], equals=True))})."
        )
    elif computed:
        verdict = f"<b>No evidence of an association</b>: {text(counts)}."
    else:
        verdict = "<b>No test was computed.</b>"
    skipped = len(results) - len(computed)
    if skipped:
        verdict += f" {plural(skipped, 'test')} not computed (insufficient coverage)."
    return verdict


def weat_card(con, run_id: str | None = None, n_runs: int = 1) -> str | None:
    """The card of one study run (``run_id``; default: the latest run holding results)."""
    latest = (run_id, n_runs) if run_id else RUNS.latest(con)
    if latest is None:
        return None
    run_id, n_runs = latest
    results = query_dicts(
        con,
        f"""select i.embedding, i.test, i.status, i.effect_size, w.ci_low, w.ci_high, i.p_value, i.p_adjusted,
        i.adjustment, {alpha_column(con, "analysis.weat_interpretations", "i")} as alpha,
        coalesce(i.is_significant, false) as is_significant
        from analysis.weat_interpretations i
        join {RESULTS} w using (run_id, embedding, test_set, test)
        where i.run_id = ? order by abs(i.effect_size) desc nulls last, i.embedding, i.test""",
        [run_id],
    )
    computed = [r for r in results if r["status"] == "computed"]
    rows = [
        [
            r["test"],
            r["embedding"],
            number(r["effect_size"]),
            magnitude(r["effect_size"], statistic="d"),
            interval(r["ci_low"], r["ci_high"], like=r["effect_size"]),
            p_value(r["p_adjusted"]),
            "yes" if r["is_significant"] else "no",
        ]
        for r in computed[:5]
    ]
    columns = ["test", "embedding", "d", "magnitude", "95% CI", "adjusted p", "significant"]
    verdict = weat_verdict(results, alpha=run_alpha(con, run_id, results))
    significant = [r for r in computed if r["is_significant"]]
    if significant:
        verdict += _word_set_note(con, run_id, max(significant, key=lambda r: abs(r["effect_size"])))
    return card_body(verdict, "Largest effects", columns, rows, run_id, n_runs, data=computed[:5])


# Registered by a call, not a decorator: mutmut 3 leaves decorated functions unmutated, and the card's
# query, table and verdict are built here (docs/mutation-survivors-guards.md).
card("Word-embedding association (WEAT)", "weat.html", order=30, runs=RUNS)(weat_card)
