"""Before any work: a study running the ``evaluation`` job has a series that makes sense.

Registered with :func:`biaswh.warehouse.runs.study.register_config_check`, so ``biaswh run`` reports these
problems with every other mistake of the config before it ingests or builds anything: the
``[evaluation]`` table and its runs (each run's merged ``[retrieval]`` resolves), the cutoffs
``evaluation_k``, ``evaluation_overlap_k`` and ``evaluation_select_k`` within every run's depth,
every run's retrievers shardable when ``[compute] corpus_shards`` asks for shards, and the
thresholds file's rows.
"""

from __future__ import annotations

from pathlib import Path

from biaswh.compute.evaluation.live_systems import check_live
from biaswh.compute.evaluation.series import series_settings
from biaswh.compute.retrieval.config import config_from_settings
from biaswh.compute.retrieval.shards import check_shardable
from biaswh.ingest.evaluation.thresholds import read_thresholds
from biaswh.warehouse.errors import UserError
from biaswh.warehouse.runs.study import register_config_check

_CUTOFFS = ("evaluation_k", "evaluation_overlap_k", "evaluation_select_k")


@register_config_check("evaluation")
def check_evaluation_settings(study) -> None:
    """Every problem of the series at once (one line each), or nothing."""
    if "evaluation" not in study.jobs:
        return
    settings, runs = series_settings(study)
    problems, depths = [], {}
    compute = study.settings.get("compute") or {}
    shards = compute.get("corpus_shards", 1) if compute.get("engine") == "ray" else 1
    for run in runs:
        try:
            config = config_from_settings(run["retrieval"], resolve=study.resolve)
            depths[run["label"]] = config.depth
            if run["live"]:
                check_live(run["live"], where=f"[[evaluation.runs]] {run['label']}:")
            elif not run["run_file"]:
                check_shardable(config, shards)
        except UserError as exc:
            problems += [f"[[evaluation.runs]] {run['label']}: {line}" for line in str(exc).splitlines()]
    if depths:
        label, depth = min(depths.items(), key=lambda item: item[1])
        for name in _CUTOFFS:
            values = study.run_parameters.get(name, [])
            deeper = [k for k in (values if isinstance(values, list) else [values]) if k > depth]
            if deeper:
                problems.append(
                    f"[parameters] {name}: {', '.join(map(str, deeper))} beyond the depth {depth} of run {label!r}"
                    " ([retrieval] depth)"
                )
    if settings.get("thresholds") and Path(study.resolve(settings["thresholds"])).is_file():
        try:
            read_thresholds(study.resolve(settings["thresholds"]))
        except UserError as exc:
            problems.append(f"[evaluation] thresholds: {exc}")
    if problems:
        raise UserError("\n".join(problems))
