"""The evaluation page's data and charts for one drift series, callable without writing HTML.

What each chart may show follows from the series, not from one run:

- a *system* is ``<run label>:<retriever>``; "Metrics at k" draws the baseline run's systems and
  every system of a later run whose retriever the baseline does not have (an external system,
  our retriever beside it), so no system of the series is missing;
- the drift chart follows a retriever over the runs that have it: a retriever present in one
  run only is a system compared (its own section), not a point in time; a checked metric with
  one value is a table cell, a metric with none is named, neither is an empty panel;
- the overlap of dense and BM25 is drawn only for runs that have both over the same corpus.
"""

from __future__ import annotations

import altair as alt
import duckdb
import pandas as pd

from biaswh.dashboards.evaluation.charts import (
    drift_chart,
    fusion_sweep_chart,
    latency_chart,
    metrics_at_k_chart,
    overlap_chart,
)

# Our main retrievers and external systems (runs written elsewhere): not sweep points, not hybrid_union.
MAIN_RETRIEVERS = "(retriever not like '%@%' and retriever <> 'hybrid_union')"


def baseline_run(con: duckdb.DuckDBPyConnection, series: str) -> str:
    """The evaluation run id of the series' baseline."""
    return con.execute(
        "select run_id from marts.dim_evaluation_runs where series_run_id = ? and is_baseline", [series]
    ).fetchone()[0]


def system_metrics(con, series: str) -> pd.DataFrame:
    """Metrics at k of every system of the series (``label:retriever``), with intervals."""
    return con.execute(
        f"""with runs as (select run_id, label, position, is_baseline from marts.dim_evaluation_runs
            where series_run_id = ?),
        in_baseline as (select distinct retriever from analysis.evaluation_metrics_at_k
            where run_id in (select run_id from runs where is_baseline))
        select r.label || ':' || m.retriever as retriever, r.position, m.k, m.metric, m.value, m.ci_low,
            m.ci_high, m.n_queries
        from analysis.evaluation_metrics_at_k m join runs r on r.run_id = m.run_id
        where {MAIN_RETRIEVERS.replace("retriever", "m.retriever")}
          and (r.is_baseline or m.retriever not in (select retriever from in_baseline))
        order by r.position, m.retriever, m.metric, m.k""",
        [series],
    ).df()


def drift_checks(con, series: str) -> pd.DataFrame:
    """Alert checks of the retrievers present in two or more runs of the series, with values."""
    # Relative checks are drawn as a percentage of the baseline (BM25 and dense scores differ in scale).
    return con.execute(
        """with repeated as (select retriever from marts.fct_evaluation_alert_checks where series_run_id = ?
            group by retriever having count(distinct run_id) >= 2)
        select c.label, c.position, c.retriever,
        case when c.direction = 'drop_pct' then c.metric || ' (% of baseline)' else c.metric end as metric,
        case when c.direction = 'drop_pct' then 100 * c.value / nullif(c.baseline_value, 0) else c.value end as value,
        c.baseline_value, case when c.direction = 'drop_pct' then 'below' else c.direction end as direction,
        case when c.direction = 'drop_pct' then 100 - c.threshold else c.threshold end as threshold,
        c.severity, c.is_breached, case when a.is_significant then 'yes' else 'no' end as significant
        from marts.fct_evaluation_alert_checks c left join analysis.evaluation_alerts a
            on a.run_id = c.run_id and a.query_set = c.query_set and a.retriever = c.retriever and a.metric = c.metric
        where c.series_run_id = ? and c.retriever in (select retriever from repeated) and c.value is not null
        order by c.position, c.retriever, metric""",
        [series, series],
    ).df()


def split_drift(drift: pd.DataFrame) -> tuple[pd.DataFrame, pd.DataFrame]:
    """(rows of metrics with two or more values: a panel each, rows of metrics with one: table cells)."""
    points = drift.groupby("metric")["value"].transform("count")
    return drift[points >= 2], drift[points < 2]


def overlap_frame(con, series: str) -> pd.DataFrame:
    """Who finds the relevant documents, for runs that have both a dense and a BM25 retriever."""
    return con.execute(
        """select e.label, e.position, o.found_by, o.share, o.n_documents
        from marts.agg_evaluation_overlap o join marts.dim_evaluation_runs e using (run_id)
        where e.series_run_id = ? and o.run_id in (select run_id from analysis.evaluation_metrics_at_k
            group by run_id having bool_or(retriever = 'bm25') and bool_or(retriever = 'dense'))""",
        [series],
    ).df()


def latency_frame(con, series: str) -> pd.DataFrame:
    """Latency p50 and p95 per retriever and run (runs written elsewhere record none)."""
    return (
        con.execute(
            f"""unpivot (select e.label, e.position, l.retriever, l.latency_p50_ms as p50,
        l.latency_p95_ms as p95 from marts.agg_evaluation_latency l join marts.dim_evaluation_runs e using (run_id)
        where e.series_run_id = ? and {MAIN_RETRIEVERS.replace("retriever", "l.retriever")})
        on p50, p95 into name percentile value latency_ms""",
            [series],
        )
        .df()
        .dropna(subset=["latency_ms"])
    )


def sweep_frame(con, baseline: str) -> pd.DataFrame:
    """The fusion sweep rows (hybrid retrievers, ``a@w`` names) of evaluation run ``baseline``."""
    return con.execute(
        "select s.* from marts.agg_evaluation_fusion_sweep s where s.run_id = ? and s.retriever like '%@%'",
        [baseline],
    ).df()


def charts(con: duckdb.DuckDBPyConnection, series: str) -> dict[str, alt.TopLevelMixin]:
    """The evaluation page's charts of one series (study run id), by name; a chart without data is left out."""
    found: dict[str, alt.TopLevelMixin] = {}
    panels, _ = split_drift(drift_checks(con, series))
    if len(panels):
        found["drift"] = drift_chart(panels)
    metrics = system_metrics(con, series)
    if len(metrics):
        found["metrics_at_k"] = metrics_at_k_chart(metrics)
    sweep = sweep_frame(con, baseline_run(con, series))
    if len(sweep):
        found["fusion_sweep"] = fusion_sweep_chart(sweep)
    overlap = overlap_frame(con, series)
    if len(overlap):
        found["overlap"] = overlap_chart(overlap)
    latency = latency_frame(con, series)
    if len(latency):
        found["latency"] = latency_chart(latency)
    return found
