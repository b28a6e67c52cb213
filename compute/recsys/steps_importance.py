"""The ``recsys_feature_importance`` study job: per condition, which features predict selection.

For every post set the study pinned (every loaded one if it pinned none), each condition
(dataset × provider × prompt style, trials pooled) gets a seeded random forest
(compute/recsys/importance.py); the rows go to ``raw.recsys_computed_feature_importance``
under the study's run id. Options come from ``[recsys_importance]``: ``trees`` (100),
``folds`` (5) and ``repeats`` (5, permutation repeats). Seeds derive from the study seed,
the post set and the condition.
"""

from __future__ import annotations

from datetime import datetime, timezone

import duckdb
import polars as pl

from biaswh.compute.recsys.config_section import RECSYS_IMPORTANCE
from biaswh.compute.recsys.steps import _has, _insert
from biaswh.warehouse.database.transactions import transaction
from biaswh.warehouse.errors import UserError
from biaswh.warehouse.runs.parameters import pinned_inputs
from biaswh.warehouse.runs.study import register_job
from biaswh.warehouse.settings.random_seeds import derive_seed
from biaswh.warehouse.settings.study_schema import register_config_section

register_config_section("recsys_importance", RECSYS_IMPORTANCE)

DEFAULTS = {"trees": 100, "folds": 5, "repeats": 5}
_CONDITION = ("dataset", "provider", "prompt_style")


def importance_options(study) -> dict:
    """The study's ``[recsys_importance]`` options over the defaults, checked."""
    options = {**DEFAULTS, **study.settings.get("recsys_importance", {})}
    for name, minimum in (("trees", 1), ("folds", 2), ("repeats", 1)):
        if not isinstance(options[name], int) or options[name] < minimum:
            raise UserError(f"{study.path}: [recsys_importance] {name} must be an integer >= {minimum}")
    return options


def _rows(run_id, now, post_set, version, condition, seed, values, result) -> list[dict]:
    base = {
        "run_id": run_id,
        "computed_at": now,
        "result_set": post_set,
        "post_set_version": version,
        **dict(zip(_CONDITION, condition, strict=True)),
        "seed": seed,
    }
    if isinstance(result, ValueError):
        n_positive = values.filter(pl.col("selected")).select(pl.col("post").n_unique()).item()
        n_samples = values.select(pl.col("post").n_unique()).item()
        features = values.select("feature", "feature_type").unique().sort("feature").iter_rows()
        return [
            {
                **base,
                "feature": feature,
                "feature_type": kind,
                "n_samples": n_samples,
                "n_positive": n_positive,
                "n_negative": n_samples - n_positive,
                "status": "error",
                "message": str(result),
            }
            for feature, kind in features
        ]
    return [
        {
            **base,
            "feature": item.feature,
            "feature_type": item.feature_type,
            "impurity_importance": item.impurity_importance,
            "permutation_importance": item.permutation_importance,
            "permutation_importance_sd": item.permutation_importance_sd,
            "auroc": result.auroc,
            "auroc_sd": result.auroc_sd,
            "n_folds": result.n_folds,
            "n_samples": result.n_samples,
            "n_positive": result.n_positive,
            "n_negative": result.n_negative,
            "model_variant": result.variant,
            "status": "ok",
            "message": None,
        }
        for item in result.features
    ]


@register_job(
    "recsys_feature_importance",
    writes=("raw.recsys_computed_feature_importance",),
    reads=("marts.fct_recsys_post_values",),
)
def recsys_feature_importance_job(con: duckdb.DuckDBPyConnection, study, run_id: str) -> None:
    """Fit a seeded, cross-validated random forest per condition of every pinned post set."""
    options = importance_options(study)
    now = datetime.now(timezone.utc).replace(tzinfo=None)
    rows: list[dict] = []
    tasks: list[tuple] = []
    if _has(con, "marts", "fct_recsys_post_values"):
        post_sets = con.execute(
            "select distinct post_set, source_version from marts.fct_recsys_post_values order by post_set"
        ).fetchall()
        pinned = pinned_inputs(con, run_id, "recsys_posts")
        if pinned:
            post_sets = [(name, version) for name, version in post_sets if name in pinned]
        for post_set, version in post_sets:
            values = con.execute(
                "select dataset, provider, prompt_style, source_row as post, selected, feature,"
                " feature_type, value_text, value_number from marts.fct_recsys_post_values where post_set = ?",
                [post_set],
            ).pl()
            for condition, group in values.group_by(list(_CONDITION), maintain_order=False):
                seed = derive_seed(study.seed, "recsys", "importance", post_set, *condition)
                tasks.append((post_set, version, condition, seed, group))
    # scikit-learn only when the job runs: the plugins load for every study and command.
    from biaswh.compute.recsys.importance_pool import condition_importances

    results = condition_importances([(group, seed) for *_, seed, group in tasks], options)
    for task, result in zip(tasks, results, strict=True):
        rows += _rows(run_id, now, *task, result)
    rows.sort(key=lambda r: (r["result_set"], *(r[c] for c in _CONDITION), r["feature"]))
    with transaction(con):
        _insert(con, "recsys_computed_feature_importance", rows)
    n_conditions = len({(r["result_set"], *(r[c] for c in _CONDITION)) for r in rows})
    n_error = len({(r["result_set"], *(r[c] for c in _CONDITION)) for r in rows if r["status"] == "error"})
    print(
        f"[{study.name}] recsys_feature_importance: {n_conditions} conditions ({n_error} failed, recorded),"
        f" {options['trees']} trees, {options['folds']}-fold",
        flush=True,
    )
