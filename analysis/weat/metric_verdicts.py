"""The verdicts on WEAT's other metrics (RND, MAC, ECT, RIPA, RNSB): ``analysis.weat_metric_verdicts``.

The ``weat`` job computes each metric's value, interval and raw permutation p
(``marts.fct_weat_metrics``); this step judges them by the study's declared verdict policy
(``[verdicts] adjustment`` and ``alpha``, :func:`biaswh.stats.multiple_comparisons.verdict_policy`),
as ``weat_report`` judges d. A family is one embedding's tests for one metric and attribute set
(e.g. RND on attribute set A over every test the embedding ran); a row without a p (pooled MAC,
the word-set sensitivity of d, a metric not computed) is in no family and judged by none.
"""

from __future__ import annotations

import polars as pl

from biaswh.stats.multiple_comparisons import VerdictPolicy
from biaswh.stats.verdicts import VERDICT_SCHEMA, with_verdicts

SCHEMA = {
    "run_id": pl.String,
    "embedding": pl.String,
    "test_set": pl.String,
    "test": pl.String,
    "metric": pl.String,
    "attribute_set": pl.String,
    "status": pl.String,
    "p_value": pl.Float64,
    **VERDICT_SCHEMA,
}
_KEY = ["embedding", "test_set", "test", "metric", "attribute_set", "status", "p_value"]


def metric_verdicts(rows: pl.DataFrame, *, run_id: str, policy: VerdictPolicy) -> pl.DataFrame:
    """One row per metric row of the run: its family, adjusted p and verdict under ``policy``.

    Parameters
    ----------
    rows : the run's ``marts.fct_weat_metrics`` rows (at least the key columns and ``p_value``).
    run_id : the study run.
    policy : the study's adjustment and alpha.

    Returns
    -------
    polars.DataFrame
        :data:`SCHEMA`; ``is_significant`` is false (and ``p_adjusted`` null) for a row without a p.
    """
    judged = with_verdicts(
        rows.select(_KEY),
        by=["embedding", "metric", "attribute_set"],
        family_name=lambda key: f"embedding {key['embedding']}, {key['metric']} on {key['attribute_set']}",
        policy=policy,
        member=pl.col("status") == "computed",
    )
    return judged.with_columns(pl.lit(run_id).alias("run_id")).select(
        [pl.col(name).cast(kind) for name, kind in SCHEMA.items()]
    )


def run_metric_rows(con, run_id: str) -> pl.DataFrame:
    """The run's metric rows (empty when the run, or the warehouse, has none)."""
    exists = con.execute(
        "select count(*) from information_schema.tables"
        " where table_schema = 'marts' and table_name = 'fct_weat_metrics'"
    ).fetchone()[0]
    if not exists:
        return pl.DataFrame(schema={name: SCHEMA[name] for name in _KEY})
    return con.execute(
        f"select {', '.join(_KEY)} from marts.fct_weat_metrics where run_id = ? order by all", [run_id]
    ).pl()
