"""The retrieval-evaluation study's findings about each retriever it measures, for ``subject_findings``.

Two kinds of finding per retriever of a series (a system written elsewhere counts as one):

- its quality, descriptive: Recall, Precision, nDCG and MRR at 10 (or at the largest cutoff the
  run evaluated, when all are below 10) with their bootstrap intervals over the queries
  (``analysis.evaluation_metrics_at_k``); fusion sweep points (``hybrid_minmax@0.3``) are left out;
- its drift, tested: each alert check of a run against the series' baseline (the paired change in
  the checked metric, its interval, exact p and the series' own verdict, ``analysis.evaluation_alerts``).
  Latency checks are left out: they measure the machine that ran the series, not the retriever
  (the study's card counts them apart), and two runs of one config on two machines must agree on
  every finding about a subject.

The baseline run's retrievers are named as the results name them (``bm25``); a retriever of another
run of the series carries the run's label (``bm25 (index_missing_10pct)``): it is another configuration.
The study run is the series' run.
"""

from __future__ import annotations

from biaswh.warehouse.relations.subjects import register_subject_findings

STUDY_TYPE = "retrieval evaluation"
QUALITY_METRICS = ("recall", "precision", "ndcg", "mrr")
_NAMED = "if(runs.is_baseline, {table}.retriever, {table}.retriever || ' (' || runs.label || ')')"
NAMED_METRICS = _NAMED.format(table="metrics")
NAMED_ALERTS = _NAMED.format(table="alerts")

register_subject_findings(
    STUDY_TYPE,
    kind="retriever",
    relations=("analysis.evaluation_metrics_at_k", "marts.dim_evaluation_runs"),
    select="""
    select
        runs.series_run_id as run_id,
        {named} as measured_as,
        'retrieval quality: ' || metrics.metric as dimension,
        metrics.metric || '@' || metrics.k || ' on ' || metrics.query_set || ' (' || metrics.n_queries
        || ' queries)' as finding,
        metrics.metric || '@' || metrics.k || ', mean over the queries (0 to 1)' as effect_name,
        metrics.value as effect,
        metrics.ci_low,
        metrics.ci_high,
        null::double as p_value,
        null::double as p_adjusted,
        null::boolean as is_significant,
        'descriptive: no test' as policy
    from analysis.evaluation_metrics_at_k as metrics
    inner join marts.dim_evaluation_runs as runs on metrics.run_id = runs.run_id
    where metrics.metric in {metrics}
        and not contains(metrics.retriever, '@')
    qualify metrics.k = coalesce(
        max(metrics.k) filter (where metrics.k <= 10)
            over (partition by metrics.run_id, metrics.query_set, metrics.retriever, metrics.metric),
        min(metrics.k) over (partition by metrics.run_id, metrics.query_set, metrics.retriever, metrics.metric)
    )
    """.format(named=NAMED_METRICS, metrics=QUALITY_METRICS),
)

register_subject_findings(
    STUDY_TYPE,
    kind="retriever",
    relations=("analysis.evaluation_alerts", "marts.dim_evaluation_runs"),
    select="""
    select
        alerts.series_run_id as run_id,
        {named} as measured_as,
        'retrieval drift: ' || alerts.metric as dimension,
        alerts.description || ', ' || runs.label || ' vs the baseline' as finding,
        'paired change in ' || alerts.metric || ' against the series'' baseline (' || alerts.test || ')'
        as effect_name,
        alerts.mean_change as effect,
        alerts.change_ci_low as ci_low,
        alerts.change_ci_high as ci_high,
        alerts.p_value,
        alerts.p_adjusted,
        alerts.is_significant,
        alerts.adjustment || ' within ' || alerts.family || ' (' || alerts.family_size
        || if(alerts.family_size = 1, ' test', ' tests') || '), α = ' || alerts.alpha as policy
    from analysis.evaluation_alerts as alerts
    inner join marts.dim_evaluation_runs as runs on alerts.run_id = runs.run_id
    where not runs.is_baseline and alerts.status = 'tested' and not coalesce(alerts.depends_on_machine, false)
    """.format(named=NAMED_ALERTS),
)
