"""The ``recsys_bias`` study job: pool-vs-recommended tests and multiple-comparison adjustment.

It runs between the two dbt builds: it reads the post-level mart and the published
results, writes ``raw.recsys_computed_results`` and ``raw.recsys_p_adjustments`` under the
study's run id, and the second build normalises and aggregates them in SQL. Options come
from the study's ``[recsys]`` table: ``pool`` (non_recommended | all_shown), ``p_adjust``
(holm | fdr_bh: an older spelling of the study's ``[verdicts] adjustment``, refused when it
differs, so every family has one policy), ``yates`` (true) and ``min_group_size`` (10). The
family of an adjustment is one result set (every feature × condition); the verdict
(``significant_adjusted``, in dbt) is its adjusted p below ``[verdicts] alpha``. The raw
``significant`` column keeps the original's meaning, raw p below the paper's level (run
parameter ``recsys_published_alpha``), for the "as published" views.
"""

from __future__ import annotations

from datetime import datetime, timezone
from typing import TYPE_CHECKING

import duckdb
import pyarrow as pa

from biaswh.compute.recsys.config_section import RECSYS
from biaswh.compute.recsys.result import MIN_GROUP_SIZE
from biaswh.stats.multiple_comparisons import ADJUSTMENT_NAMES, METHOD_NAMES, adjust_family, verdict_policy
from biaswh.warehouse.database.transactions import registered, transaction
from biaswh.warehouse.errors import UserError
from biaswh.warehouse.relations.contracts import register_contract_relations
from biaswh.warehouse.runs.parameters import pinned_inputs, register_run_parameters
from biaswh.warehouse.runs.study import register_config_check, register_job, register_rebuild_table
from biaswh.warehouse.settings.config_schema import OPEN_SHARE, SHARE, suggestion
from biaswh.warehouse.settings.study_schema import register_config_section

if TYPE_CHECKING:
    from biaswh.compute.recsys.conditions import ConditionResult

register_config_section("recsys", RECSYS)
register_run_parameters(
    {
        "recsys_published_alpha": OPEN_SHARE,
        "recsys_marker_one_star": SHARE,
        "recsys_marker_two_stars": SHARE,
        "recsys_marker_three_stars": SHARE,
    },
    retired={"recsys_alpha": "[verdicts] alpha"},  # one alpha for every family's verdicts
)

DEFAULTS = {"pool": "non_recommended", "p_adjust": "holm", "yates": True, "min_group_size": MIN_GROUP_SIZE}
_KEY = ("feature", "dataset", "provider", "prompt_style")


@register_config_check("recsys")
def check_recsys_options(study) -> None:
    """Before any work: the ``[recsys]`` options name a known pool and adjustment."""
    if "recsys" in study.settings:
        recsys_options(study)


def recsys_options(study) -> dict:
    """The study's ``[recsys]`` options over the defaults, checked; ``alpha`` is the verdict policy's."""
    # one verdict policy: [recsys] p_adjust may only repeat the study's [verdicts] adjustment
    policy = verdict_policy(study.settings, where=str(study.path))
    options = {**DEFAULTS, "p_adjust": policy.method, **study.settings.get("recsys", {})}
    unknown = set(options) - set(DEFAULTS)
    if unknown:
        raise UserError(f"{study.path}: unknown [recsys] option(s) {sorted(unknown)}; known: {sorted(DEFAULTS)}")
    if options["pool"] not in ("non_recommended", "all_shown"):
        close = suggestion(str(options["pool"]), ("non_recommended", "all_shown"))
        raise UserError(f"{study.path}: [recsys] pool must be non_recommended or all_shown{close}")
    if options["p_adjust"] not in METHOD_NAMES:
        close = suggestion(str(options["p_adjust"]), METHOD_NAMES)
        raise UserError(f"{study.path}: [recsys] p_adjust must be one of {sorted(METHOD_NAMES)}{close}")
    if options["p_adjust"] != policy.method:
        raise UserError(
            f"{study.path}: [recsys] p_adjust = {options['p_adjust']!r} differs from the study's verdict policy "
            f"({ADJUSTMENT_NAMES[policy.method]}); set [verdicts] adjustment instead (one policy for every family)"
        )
    published_alpha = float(study.run_parameters["recsys_published_alpha"])
    return {**options, "alpha": policy.alpha, "published_alpha": published_alpha}


def _has(con, schema: str, name: str) -> bool:
    return (
        con.execute(
            "select count(*) from information_schema.tables where table_schema = ? and table_name = ?", [schema, name]
        ).fetchone()[0]
        > 0
    )


def _computed_row(run_id, now, post_set, version, item: ConditionResult, published_alpha: float) -> dict:
    r = item.result
    low, high = r.interval if r.interval else (None, None)
    return {
        "run_id": run_id,
        "computed_at": now,
        "result_set": post_set,
        "post_set_version": version,
        "pool_definition": item.pool_definition,
        "feature": item.feature,
        "feature_type": item.feature_type,
        "dataset": item.dataset,
        "provider": item.provider,
        "prompt_style": item.prompt_style,
        "bias": r.bias,
        "p_value": r.p_value,
        "metric": r.metric,
        "significant": r.p_value < published_alpha,  # the original's column: raw p, as published
        "status": r.status,
        "message": r.message,
        "test_variant": r.test_variant,
        "statistic": r.statistic,
        "degrees_of_freedom": r.degrees_of_freedom,
        "n_recommended": r.n_recommended,
        "n_pool": r.n_pool,
        "hedges_g": r.hedges_g,
        "ci_low": low,
        "ci_high": high,
        "bias_corrected_v": r.bias_corrected_v,
        "yates_applied": r.yates_applied,
    }


def _adjustment_rows(run_id, now, source: str, result_set: str, keyed_p: list[tuple], options: dict) -> list[dict]:
    adjusted = adjust_family([p for *_, p in keyed_p], method=options["p_adjust"], alpha=options["alpha"])
    return [
        {
            "run_id": run_id,
            "computed_at": now,
            "result_source": source,
            "result_set": result_set,
            **dict(zip(_KEY, key)),
            "p_value": p,
            "p_value_adjusted": p_adj,
            "adjustment_method": options["p_adjust"],
            "n_tests": adjusted.n_tests,
        }
        for (*key, p), p_adj in zip(keyed_p, adjusted.p_values_adjusted)
    ]


def _insert(con, table: str, rows: list[dict]) -> None:
    if not rows:
        return
    with registered(con, "incoming_recsys_rows", pa.Table.from_pylist(rows)):
        con.execute(f"insert into raw.{table} by name select * from incoming_recsys_rows")


def _pins_recsys_inputs(con, run_id: str) -> bool:
    """Whether the study ingested any post set or result set: then it tests only its own inputs
    (a study that ingests none tests everything loaded)."""
    return bool(pinned_inputs(con, run_id, "recsys_posts") or pinned_inputs(con, run_id, "recsys_summary"))


def _computed(con, run_id, now, options) -> tuple[list[dict], list[dict]]:
    computed, adjustments = [], []
    if not _has(con, "marts", "fct_recsys_post_values"):
        return computed, adjustments
    post_sets = con.execute(
        "select distinct post_set, source_version from marts.fct_recsys_post_values order by post_set"
    ).fetchall()
    if _pins_recsys_inputs(con, run_id):  # the post sets this study ingested, never another study's
        pinned = pinned_inputs(con, run_id, "recsys_posts")
        post_sets = [(name, version) for name, version in post_sets if name in pinned]
    # scipy.stats only when the job runs: the plugins load for every study and command.
    from biaswh.compute.recsys.conditions import pool_vs_recommended

    for post_set, version in post_sets:
        values = con.execute(
            "select dataset, provider, prompt_style, selected, feature, feature_type, value_text,"
            " value_number from marts.fct_recsys_post_values where post_set = ?",
            [post_set],
        ).pl()
        results = pool_vs_recommended(
            values, pool=options["pool"], min_group_size=int(options["min_group_size"]), yates=bool(options["yates"])
        )
        rows = [_computed_row(run_id, now, post_set, version, item, options["published_alpha"]) for item in results]
        computed += rows
        adjustments += _adjustment_rows(
            run_id, now, "computed", post_set, [(*(r[k] for k in _KEY), r["p_value"]) for r in rows], options
        )
    return computed, adjustments


def _published_adjustments(con, run_id, now, options) -> list[dict]:
    """Adjust the published result sets this study ingested (all loaded ones if it ingested none).

    The adjustment rows are what ties a published result set to this run in the marts.
    """
    if not _has(con, "staging", "stg_recsys__published_results"):
        return []
    rows = con.execute(
        "select result_set, feature, dataset, provider, prompt_style, p_value"
        " from staging.stg_recsys__published_results"
        " order by result_set, feature, dataset, provider, prompt_style"
    ).fetchall()
    if _pins_recsys_inputs(con, run_id):
        pinned = pinned_inputs(con, run_id, "recsys_summary")
        rows = [r for r in rows if r[0] in pinned]
    out = []
    for result_set in sorted({r[0] for r in rows}):
        out += _adjustment_rows(
            run_id, now, "published", result_set, [r[1:] for r in rows if r[0] == result_set], options
        )
    return out


register_contract_relations(
    "marts",
    pool_vs_recommended_summary="fct_recsys_pool_vs_recommended",
    recsys_bias_aggregated="agg_recsys_bias",
    recsys_effect_sizes_aggregated="agg_recsys_effect_sizes",
)
register_rebuild_table("recsys", "fct_recsys_pool_vs_recommended")


@register_job(
    "recsys_bias",
    first_query="select feature, r_squared_mean, share_significant, marker, n_conditions"
    " from recsys_effect_sizes_aggregated where run_id = '{run}' and level = 'all' order by r_squared_mean desc",
    writes=("raw.recsys_computed_results", "raw.recsys_p_adjustments"),
    reads=("marts.fct_recsys_post_values", "staging.stg_recsys__published_results"),
)
def recsys_bias_job(con: duckdb.DuckDBPyConnection, study, run_id: str) -> None:
    """Test every feature × condition of every loaded post set; adjust p-values per result set."""
    options = recsys_options(study)
    now = datetime.now(timezone.utc).replace(tzinfo=None)
    computed, adjustments = _computed(con, run_id, now, options)
    adjustments += _published_adjustments(con, run_id, now, options)
    with transaction(con):
        _insert(con, "recsys_computed_results", computed)
        _insert(con, "recsys_p_adjustments", adjustments)
    n_error = sum(r["status"] == "error" for r in computed)
    print(
        f"[{study.name}] recsys_bias: {len(computed)} computed tests ({n_error} failed, recorded),"
        f" {len(adjustments)} p-values adjusted ({options['p_adjust']})",
        flush=True,
    )
