"""The findings card of the retrieval evaluation and drift study."""

from __future__ import annotations

from biaswh.dashboards.common.findings import card, card_body, interval
from biaswh.dashboards.common.format import floor_note, p_value, plural
from biaswh.dashboards.common.html import text
from biaswh.dashboards.common.queries import number, query_dicts, relation_exists
from biaswh.dashboards.common.runs import RunsIn
from biaswh.dashboards.common.verdict_policy import run_adjustment, run_alpha
from biaswh.stats.verdicts import alpha_text

# every series, alerts or not (a series without a breach is a finding too); the page shows the same runs
RUNS = RunsIn("marts.dim_evaluation_runs", "series_run_id")


SEVERITY_ORDER = {"high": 0, "medium": 1, "low": 2}


def _which(significant: list[dict]) -> str:
    """How the card names the first of the significant alerts (sorted by severity, then size): "the most
    severe" only when no other is as severe, else the largest change of the most severe level."""
    if len(significant) == 1:
        return "the significant one"
    first, second = (SEVERITY_ORDER.get(a["severity"], 3) for a in significant[:2])
    return "the most severe" if first < second else f"the largest change among the {significant[0]['severity']} ones"


def _latency_note(machine: list[dict]) -> str:
    """The latency breaches in one sentence: counted apart, as they measure the machine, not the retrievers."""
    tested = [a for a in machine if a.get("p_adjusted") is not None]
    significant = sum(bool(a["is_significant"]) for a in machine)
    return (
        f"Latency, which measures the machine that ran the series: "
        f"{plural(len(machine), 'threshold breach', 'threshold breaches')}, {significant} significant"
        f" (their own family: {plural(len(tested), 'tested breach', 'tested breaches')})."
    )


def evaluation_card(con, run_id: str | None = None, n_runs: int = 1) -> str | None:
    """The card of one study run (``run_id``; default: the latest run holding results)."""
    latest = (run_id, n_runs) if run_id else RUNS.latest(con)
    if latest is None or not relation_exists(con, "analysis", "evaluation_alerts"):
        return None
    run_id, n_runs = latest
    alerts = query_dicts(
        con,
        """select * from analysis.evaluation_alerts where series_run_id = ?
        order by is_significant desc, case severity when 'high' then 0 when 'medium' then 1 else 2 end,
        abs(mean_change) desc nulls last""",
        [run_id],
    )
    # A check with no query paired with the baseline is not testable: not a breach to count.
    every = [a for a in alerts if a.get("status") != "not testable"]
    # Latency measures the machine that ran the series: its breaches are a family of their own
    # (analysis/evaluation/steps.py) and stay out of the headline, which must read the same on any machine.
    alerts = [a for a in every if not a.get("depends_on_machine")]
    machine = [a for a in every if a.get("depends_on_machine")]
    significant = [a for a in alerts if a["is_significant"]]
    # the family: the series' tested breaches, adjusted by the study's verdict policy
    tested = [a for a in alerts if a.get("p_adjusted") is not None]
    adjustment = run_adjustment(con, run_id, every)
    alpha = alpha_text(run_alpha(con, run_id, every))
    family = f"{plural(len(tested), 'tested breach', 'tested breaches')} of the series, {adjustment}-adjusted, {alpha}"
    if significant:
        top = significant[0]
        which = _which(significant)
        floor = floor_note(top["n_paired_queries"], top.get("min_p"), top.get("n_nonzero"))
        verdict = (
            f"<b>{len(significant)} of {len(alerts)} threshold breaches are significant</b> against the "
            f"baseline (family: {text(family)}); {which}: {text(top['label'])}, {text(top['retriever'])} "
            f"{text(top['metric'])} {number(top['baseline_value'])} → {number(top['value'])} "
            f"(change 95% CI {interval(top['change_ci_low'], top['change_ci_high'])}, "
            f"{text(adjustment)} p {text(p_value(top.get('p_adjusted'), equals=True))}"
            + (f"; {floor}" if floor else "")
            + ")."
        )
    else:
        verdict = (
            f"<b>No significant drift</b>: {plural(len(alerts), 'threshold breach', 'threshold breaches')}, "
            "none significant against the "
            f"baseline (paired sign-flip randomization test; family: {text(family)})."
        )
    if machine:
        verdict += " " + _latency_note(machine)
    significant += [a for a in machine if a["is_significant"]]
    rows = [
        [
            a["label"],
            a["retriever"],
            a["metric"],
            number(a["baseline_value"]),
            number(a["value"]),
            interval(a["change_ci_low"], a["change_ci_high"]),
            p_value(a.get("p_adjusted")),
            a["severity"],
        ]
        for a in significant[:5]
    ]
    columns = ["run", "retriever", "metric", "baseline", "value", "change 95% CI", f"{adjustment} p", "severity"]
    return card_body(verdict, "Significant alerts (top 5)", columns, rows, run_id, n_runs, data=significant[:5])


# Registered by a call, not a decorator: mutmut 3 leaves decorated functions unmutated, and the card's
# verdict and table are built here (docs/mutation-survivors-pages.md).
card("Retrieval evaluation and drift", "evaluation.html", order=20, runs=RUNS)(evaluation_card)
