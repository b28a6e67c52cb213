"""The findings card of the WEAT study."""

from __future__ import annotations

from dashboards.findings import ALPHA, card, card_body, interval, latest_run, p_value
from dashboards.html import text
from dashboards.queries import number, query_dicts, relation_exists


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


@card("Word-embedding association (WEAT)", "weat.html")
def weat_card(con) -> str | None:
    latest = latest_run(con, "marts.weat_results")
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
            f"{number(top['effect_size'])} (95% CI {interval(top['ci_low'], top['ci_high'])}, "
            f"p {p_value(top['p_value'], equals=True)})."
        )
        verdict += _word_set_note(con, run_id, top)
    else:
        verdict = f"<b>No evidence of an association</b> in any of the {len(computed)} computed tests (p ≥ {ALPHA})."
    if skipped:
        verdict += f" {skipped} test(s) not computed (insufficient coverage)."
    rows = [
        [
            r["test"],
            r["embedding"],
            number(r["effect_size"]),
            interval(r["ci_low"], r["ci_high"]),
            p_value(r["p_value"]),
        ]
        for r in computed[:5]
    ]
    return card_body(verdict, "Largest effects", ["test", "embedding", "d", "95% CI", "p"], rows, run_id, n_runs)
