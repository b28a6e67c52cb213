"""Analysis step ``evaluation``: bootstrap intervals and alerts of a drift series into ``analysis.*``.

Writes the contract relations ``analysis.evaluation_metrics_at_k`` (run_id, retriever, k,
metric, value, ci_low, ci_high, n_queries, ...) and ``analysis.evaluation_alerts`` (run_id,
baseline_run_id, retriever, metric, value, baseline_value, threshold, severity,
is_significant, family, family_size, p_adjusted, adjustment, ...), one set of rows per evaluation
run of the study run's series; an alert's family is its series (``[verdicts]``, Holm by default).
Options (``[evaluation]``): ``bootstrap_resamples`` (2000), ``alpha`` (0.05), ``compare``
(``{metric = "ndcg", k = 10}``): the metric of ``analysis.evaluation_system_comparisons``, every
system of the series (our retrievers, runs written elsewhere) against every other.
"""

from __future__ import annotations

import polars as pl

from biaswh.analysis.common.store import replace_run_rows
from biaswh.analysis.evaluation import subject_findings  # noqa: F401 - registers the retrievers' findings
from biaswh.analysis.evaluation.alert_lifecycle import ensure_alert_tables
from biaswh.analysis.evaluation.alerts import series_alerts
from biaswh.analysis.evaluation.comparisons import system_comparisons
from biaswh.analysis.evaluation.intervals import METRICS, metrics_with_intervals
from biaswh.stats.multiple_comparisons import VerdictPolicy, verdict_policy
from biaswh.stats.verdicts import with_verdicts
from biaswh.warehouse.database.transactions import transaction
from biaswh.warehouse.errors import UserError
from biaswh.warehouse.relations.contracts import register_contract_relations
from biaswh.warehouse.runs.study import register_analysis, register_config_check
from biaswh.warehouse.settings.config_schema import suggestion
from biaswh.warehouse.settings.random_seeds import derive_seed


@register_config_check("evaluation_analysis")
def check_evaluation_analysis(study) -> None:
    """Before any work: the metrics named (``compare``, ``evaluation_select_metric``) exist and
    ``compare.k`` is one of the cutoffs the marts compute (``evaluation_k``)."""
    if "evaluation" not in study.analysis:
        return
    compare = dict(study.settings.get("evaluation", {}).get("compare") or {})
    problems = []
    for where, metric in (
        ("[evaluation.compare] metric", compare.get("metric", "ndcg")),
        ("[parameters] evaluation_select_metric", study.run_parameters.get("evaluation_select_metric", "ndcg")),
    ):
        if metric not in METRICS:
            problems.append(
                f"{where}: unknown metric {metric!r}{suggestion(metric, METRICS)}; known: {', '.join(METRICS)}"
            )
    cutoffs = study.run_parameters.get("evaluation_k", [])
    if compare.get("k", 10) not in cutoffs:
        problems.append(
            f"[evaluation.compare] k = {compare.get('k', 10)} is not one of the cutoffs"
            f" [parameters] evaluation_k = {cutoffs}"
        )
    if problems:
        raise UserError("\n".join(problems))


def alert_verdicts(alerts: pl.DataFrame, *, policy: VerdictPolicy) -> pl.DataFrame:
    """The verdict columns of the alerts: a family is the series' breached checks with a test,
    adjusted by the study's policy; the latency checks (``depends_on_machine``) are a family of
    their own, so how many of them the machine breached never moves another alert's verdict. An
    alert stays significant only if its test called it so (its own rules, e.g. a minimum n) and
    its adjusted p is below alpha."""
    tested = alerts["is_significant"]
    judged = with_verdicts(
        alerts,
        by=["series_run_id", "depends_on_machine"],
        family_name=lambda key: (
            "the series' latency breaches (machine-dependent)" if key["depends_on_machine"] else "the series' breaches"
        ),
        policy=policy,
    )
    return judged.with_columns((pl.col("is_significant") & tested).alias("is_significant"))


register_contract_relations("analysis", "evaluation_metrics_at_k", "evaluation_alerts")
# The contract names from before the family's tables took its name, kept until 0.2
# (warehouse/relations/renamed_marts.py carries an older warehouse's tables over).
register_contract_relations(
    "analysis", retrieval_metrics_at_k="evaluation_metrics_at_k", retrieval_alerts="evaluation_alerts"
)


@register_analysis(
    "evaluation",
    first_query="select label, retriever, metric, value, baseline_value, is_significant from evaluation_alerts"
    " where series_run_id = '{run}'",
)
def evaluation_analysis(con, study, run_id: str) -> None:
    """Intervals of every metric and the alerts of the series that study run ``run_id`` produced."""
    settings = study.settings.get("evaluation", {})
    n_resamples = int(settings.get("bootstrap_resamples", 2000))
    # one alpha for alerts and system comparisons: [verdicts] alpha, else the older [evaluation] alpha
    policy = verdict_policy(study.settings, default_alpha=float(settings.get("alpha", 0.05)), where=str(study.path))
    alpha = policy.alpha
    runs = [
        r[0]
        for r in con.execute(
            "select run_id from marts.dim_evaluation_runs where series_run_id = ? order by position", [run_id]
        ).fetchall()
    ]
    if not runs:
        raise UserError(f"run {run_id} has no evaluation runs: does the study run the `evaluation` job?")
    query_metrics = con.execute(
        "select m.* from marts.fct_evaluation_query_metrics m join marts.dim_evaluation_runs r using (run_id)"
        " where r.series_run_id = ?",
        [run_id],
    ).pl()
    metrics = metrics_with_intervals(
        query_metrics, seed=derive_seed(study.seed, "evaluation", "bootstrap"), n_resamples=n_resamples
    )
    alerts = series_alerts(con, run_id, seed=study.seed, alpha=alpha, n_resamples=n_resamples)
    alerts = alert_verdicts(alerts, policy=policy)
    compare = dict(settings.get("compare") or {})
    metric, k = compare.get("metric", "ndcg"), compare.get("k", 10)
    if metric not in METRICS or not isinstance(k, int):
        raise UserError(f"[evaluation] compare: metric must be one of {', '.join(METRICS)} and k an integer")
    comparisons = system_comparisons(
        con, run_id, metric=metric, k=k, seed=study.seed, policy=policy, n_resamples=n_resamples
    )
    with transaction(con):
        for evaluation_run in runs:
            replace_run_rows(
                con, "evaluation_metrics_at_k", evaluation_run, metrics.filter(pl.col("run_id") == evaluation_run)
            )
            replace_run_rows(
                con, "evaluation_alerts", evaluation_run, alerts.filter(pl.col("run_id") == evaluation_run)
            )
        replace_run_rows(con, "evaluation_system_comparisons", run_id, comparisons)
        ensure_alert_tables(con)  # empty until a monitored study opens an alert: its contract views always exist
    print(
        f"  analysis.evaluation_metrics_at_k: {metrics.height:,} rows; analysis.evaluation_alerts: "
        f"{alerts.height:,} alerts ({alerts['is_significant'].sum()} significant); "
        f"analysis.evaluation_system_comparisons: {comparisons.height:,} pairs at {metric}@{k}",
        flush=True,
    )
