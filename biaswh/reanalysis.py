"""``biaswh analyze``: re-run a study's analysis steps on the current marts for one of its runs."""

from __future__ import annotations

from biaswh.pipeline import _finish_or_fail, _run_registered
from biaswh.plugins import load_plugins
from biaswh.warehouse.database.connection import open_warehouse
from biaswh.warehouse.runs.registry import check_study_run, latest_succeeded_study_run, start_run
from biaswh.warehouse.runs.study import ANALYSIS_STEPS, load_study


def analyze(study_path: str, *, run_id: str | None = None) -> str:
    """Re-run a study's analysis steps on the current marts for one of its study runs.

    The steps analyse the study run ``run_id`` (default: the study's latest succeeded run); the
    re-analysis itself is recorded as a run of kind ``analysis`` naming that target.
    """
    load_plugins()
    study = load_study(study_path)
    with open_warehouse() as con:
        target = run_id
        if target is not None:
            check_study_run(con, study, target)
        else:
            target, finished_at = latest_succeeded_study_run(con, study)
            print(
                f"[{study.name}] analysing study run {target}, the latest that succeeded"
                f" (finished {finished_at:%Y-%m-%d %H:%M:%S} UTC)",
                flush=True,
            )
        analysis_run = start_run(
            con, kind="analysis", name=study.name, parameters={**study.parameters(), "target_run_id": target}
        ).run_id
    _finish_or_fail(analysis_run, lambda: _run_registered(study, target, study.analysis, ANALYSIS_STEPS))
    return target
