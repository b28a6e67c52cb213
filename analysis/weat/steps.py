"""Analysis step ``weat_report``: reads ``marts.fct_weat_results`` and ``marts.fct_weat_metrics`` and writes
``analysis.weat_interpretations`` (magnitude, bias level, direction and the verdict per test),
``analysis.weat_metric_verdicts`` (the other metrics' adjusted p and verdict, ``metric_verdicts.py``),
``analysis.weat_bias_level_counts`` (tests per level and embedding) and
``analysis.weat_embedding_rankings`` (embeddings ranked per test and metric, with intervals)."""

from __future__ import annotations

import dataclasses

import polars as pl

from biaswh.analysis.common.store import replace_run_rows
from biaswh.analysis.weat import subject_findings  # noqa: F401 - registers the embeddings' findings
from biaswh.analysis.weat.interpretation import interpret, level_counts
from biaswh.analysis.weat.metric_verdicts import metric_verdicts, run_metric_rows
from biaswh.analysis.weat.ranking import Ranked, rank_embeddings
from biaswh.stats.multiple_comparisons import verdict_policy
from biaswh.stats.verdicts import VERDICT_SCHEMA, with_verdicts
from biaswh.warehouse.database.transactions import transaction
from biaswh.warehouse.errors import UserError
from biaswh.warehouse.relations.contracts import register_contract_relations
from biaswh.warehouse.runs.study import register_analysis

SCHEMAS = {
    "weat_interpretations": {
        "run_id": pl.String,
        "embedding": pl.String,
        "test_set": pl.String,
        "test": pl.String,
        "status": pl.String,
        "effect_size": pl.Float64,
        "p_value": pl.Float64,
        **VERDICT_SCHEMA,
        "magnitude": pl.String,
        "bias_level": pl.String,
        "direction": pl.String,
    },
    "weat_bias_level_counts": {
        "run_id": pl.String,
        "embedding": pl.String,
        "bias_level": pl.String,
        "severity_order": pl.Int32,
        "n_tests": pl.Int32,
    },
    "weat_embedding_rankings": {
        "run_id": pl.String,
        **{
            f.name: {"int": pl.Int32, "float": pl.Float64, "str": pl.String}.get(f.type, pl.Boolean)
            for f in dataclasses.fields(Ranked)
        },
    },
}


def _rankings(con, run_id: str) -> list[dict]:
    """Embeddings ranked per (test, metric, attribute set) from the run's computed metric rows."""
    if not con.execute(
        "select count(*) from information_schema.tables"
        " where table_schema = 'marts' and table_name = 'fct_weat_metrics'"
    ).fetchone()[0]:
        return []
    cursor = con.execute(
        "select test_set, test, metric, attribute_set, embedding, value, ci_low, ci_high from marts.fct_weat_metrics"
        " where run_id = ? and status = 'computed' order by all",
        [run_id],
    )
    names = [d[0] for d in cursor.description]
    rows = [dict(zip(names, r)) for r in cursor.fetchall()]
    return [{"run_id": run_id, **dataclasses.asdict(r)} for r in rank_embeddings(rows)]


def _report_run(con, run_id: str) -> str | None:
    """The study run to report: ``run_id`` when it has results, else the latest run that has."""
    found = con.execute("select count(*) from marts.fct_weat_results where run_id = ?", [run_id]).fetchone()[0]
    if found:
        return run_id
    row = con.execute(
        "select w.run_id from marts.fct_weat_results w join marts.dim_runs r using (run_id)"
        " order by r.started_at desc limit 1"
    ).fetchone()
    return row[0] if row else None


register_contract_relations("marts", weat_results="fct_weat_results")


@register_analysis(
    "weat_report",
    first_query="select embedding, test, effect_size, ci_low, ci_high, p_value from weat_results"
    " where run_id = '{run}'",
)
def report_weat(con, study, run_id: str) -> None:
    """Magnitude, bias level and direction per test, and the count of tests per level, per embedding.

    The family is one embedding's computed tests: their p-values are adjusted within it by the
    study's verdict policy (``[verdicts]``, Holm by default). ``is_significant`` is the policy's
    verdict (adjusted p < alpha) with the bootstrap interval excluding 0, as the reading requires.
    The other metrics (RND, MAC, ECT, RIPA, RNSB) are judged by the same policy, each within one
    embedding's tests of one metric and attribute set (``analysis.weat_metric_verdicts``).
    """
    policy = verdict_policy(study.settings, where=str(study.path))
    report_run = _report_run(con, run_id)
    if report_run is None:
        raise UserError("no WEAT results in marts.fct_weat_results: add the 'weat' job to the study's jobs")
    tests = con.execute(
        "select w.embedding, w.test_set, w.test, w.status, w.effect_size, w.p_value, w.ci_low, w.ci_high,"
        " t.target_x_label as x_label, t.target_y_label as y_label, t.attribute_a_label as a_label,"
        " t.attribute_b_label as b_label from marts.fct_weat_results w"
        " join marts.dim_weat_tests t using (test_set, test) where w.run_id = ? order by all",
        [report_run],
    ).pl()
    tests = with_verdicts(
        tests,
        by=["embedding"],
        family_name=lambda key: f"embedding {key['embedding']}",
        policy=policy,
        member=pl.col("status") == "computed",
    )
    interpretations, levels_by_embedding = [], {}
    for row in tests.iter_rows(named=True):
        labels = {key: row[key] for key in ("x_label", "y_label", "a_label", "b_label")}
        if row["status"] == "computed":
            reading = interpret(
                row["effect_size"],
                row["p_adjusted"],
                **labels,
                ci_low=row["ci_low"],
                ci_high=row["ci_high"],
                alpha=policy.alpha,
            )
            magnitude, level, direction = reading.magnitude, reading.bias_level, reading.direction
        else:
            magnitude, level, direction = None, "not computed", f"Not computed: {row['status']}."
        interpretations.append(
            {key: row[key] for key in ("embedding", "test_set", "test", "status", "effect_size", "p_value")}
            | {key: row[key] for key in ("family", "family_size", "p_adjusted", "adjustment", "alpha")}
            | {
                "run_id": report_run,
                "is_significant": level not in ("not significant", "not computed"),
                "magnitude": magnitude,
                "bias_level": level,
                "direction": direction,
            }
        )
        levels_by_embedding.setdefault(row["embedding"], []).append(level)
    counts = [
        {"run_id": report_run, "embedding": embedding, "bias_level": level, "severity_order": order, "n_tests": n}
        for embedding, levels in levels_by_embedding.items()
        for order, (level, n) in enumerate(level_counts(levels).items(), start=1)
    ]
    with transaction(con):
        for name, records in (
            ("weat_interpretations", interpretations),
            ("weat_bias_level_counts", counts),
            ("weat_embedding_rankings", _rankings(con, report_run)),
        ):
            replace_run_rows(con, name, report_run, pl.DataFrame(records, schema=SCHEMAS[name]))
        judged = metric_verdicts(run_metric_rows(con, report_run), run_id=report_run, policy=policy)
        replace_run_rows(con, "weat_metric_verdicts", report_run, judged)
