"""``biaswh audit AUDIT.toml``: every study type that applies to each subject, one verdict policy for all.

The audit plans its study runs (:mod:`biaswh.common.audit_studies`), checks every config before
the first starts, runs them in one warehouse with the audit's seed, records what it did with
each subject and study type (``raw.audit_subjects``), then adjusts every finding with a p-value
together, as one family (the audit's ``[verdicts]``, Holm at 0.05 by default), into
``analysis.audit_findings``; ``subject_findings`` then shows the audit's verdicts.
"""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl

from analysis.common.store import replace_run_rows
from biaswh.common.audit_config import Audit, Subject, load_audit
from biaswh.common.audit_studies import PlannedStudy, Skipped, plan_audit, write_config
from biaswh.plugins import load_plugins
from biaswh.run_outcome import finish_or_fail
from stats.multiple_comparisons import adjust_family
from stats.verdicts import alpha_text
from warehouse.command_lock import exclusive_command
from warehouse.connection import open_warehouse
from warehouse.contracts import publish_contract_views
from warehouse.runs import start_run
from warehouse.settings import warehouse_paths
from warehouse.study import load_study
from warehouse.transactions import transaction


def _subject_row(audit_run: str, subject: Subject, study_type: str, **status) -> dict:
    return {
        "audit_run_id": audit_run,
        "subject_id": subject.subject_id,
        "subject_kind": subject.kind,
        "subject_name": subject.name,
        "subject_version": subject.version,
        "config_hash": subject.config_hash,
        "configuration": json.dumps(subject.configuration, sort_keys=True),
        "study_type": study_type,
        "run_id": None,
        "measured_as": None,
        "reason": None,
        **status,
    }


def _record(con, rows: list[dict]) -> None:
    if not rows:
        return
    columns = list(rows[0])
    con.executemany(
        f"insert into raw.audit_subjects ({', '.join(columns)}) values ({', '.join('?' for _ in columns)})",
        [[row[c] for c in columns] for row in rows],
    )


def _latest_run(con, name: str) -> str:
    return con.execute(
        "select run_id from raw.runs where kind = 'study' and name = ? and status = 'succeeded'"
        " order by started_at desc limit 1",
        [name],
    ).fetchone()[0]


def adjust_audit_findings(con, audit: Audit, audit_run: str) -> pl.DataFrame:
    """Adjust every tested finding of the audit's subjects together; write and return ``analysis.audit_findings``."""
    publish_contract_views(con)  # subject_findings over the tables the audit's runs just wrote
    tested = con.execute(
        "select run_id as study_run_id, subject_id, study_type, finding, p_value from main.subject_findings"
        " where audit_run_id = ? and p_value is not null order by study_type, subject_id, finding",
        [audit_run],
    ).pl()
    adjusted = adjust_family(tested["p_value"].to_list(), method=audit.policy.method, alpha=audit.policy.alpha)
    policy = (
        f"{audit.policy.name} over the {adjusted.n_tests} tested findings of audit {audit.name},"
        f" {alpha_text(audit.policy.alpha)}"
    )
    frame = tested.with_columns(
        pl.lit(audit_run).alias("run_id"),
        pl.Series("p_adjusted", adjusted.p_values_adjusted, dtype=pl.Float64),
        pl.Series("is_significant", adjusted.rejected, dtype=pl.Boolean),
        pl.lit(audit.policy.name).alias("adjustment"),
        pl.lit(audit.policy.alpha).alias("alpha"),
        pl.lit(adjusted.n_tests).alias("family_size"),
        pl.lit(policy).alias("policy"),
    )
    with transaction(con):
        replace_run_rows(con, "audit_findings", audit_run, frame)
    publish_contract_views(con)  # now joined with the audit's verdicts
    return frame


def _run_all(audit: Audit, audit_run: str, planned: list[PlannedStudy], configs: list[Path], skipped: list[Skipped]):
    from biaswh.pipeline import run_study

    with open_warehouse() as con, transaction(con):
        _record(
            con, [_subject_row(audit_run, s.subject, s.study_type, status=s.status, reason=s.reason) for s in skipped]
        )
    for number, (study, config) in enumerate(zip(planned, configs), start=1):
        print(f"== audit {audit.name}: study {number}/{len(planned)}: {study.study_type} ({config})", flush=True)
        run_study(str(config))
        with open_warehouse() as con, transaction(con):
            run_id = _latest_run(con, study.name)
            _record(
                con,
                [
                    _subject_row(audit_run, s, study.study_type, status="measured", run_id=run_id, measured_as=name)
                    for s, name in study.members
                ],
            )
    with open_warehouse() as con:
        adjust_audit_findings(con, audit, audit_run)


def run_audit(path: str) -> Path:
    """Run the audit ``path`` end to end; print what was measured and what not; return the site's index."""
    from biaswh.pipeline import dashboards

    load_plugins()
    audit = load_audit(path)
    planned, skipped = plan_audit(audit)
    folder = warehouse_paths().home / "audits" / audit.name
    configs = [write_config(study.config, folder / f"{study.name}.toml") for study in planned]
    for config in configs:  # every generated config checked before the first run starts
        load_study(config, check_files=True)
    parameters = {
        "config": str(audit.path),
        "name": audit.name,
        "seed": audit.seed,
        "data": audit.data,
        "verdicts": {"adjustment": audit.policy.method, "alpha": audit.policy.alpha},
        "subjects": [{"subject_id": s.subject_id, "kind": s.kind, "label": s.label} for s in audit.subjects],
        "studies": [str(config) for config in configs],
        "description": audit.description,
    }
    with exclusive_command(f"biaswh audit {path}"):
        with open_warehouse() as con:
            audit_run = start_run(con, kind="audit", name=audit.name, parameters=parameters).run_id
        finish_or_fail(audit_run, lambda: _run_all(audit, audit_run, planned, configs, skipped))
        index = dashboards() / "index.html"
    _print_summary(audit, audit_run)
    return index


def _print_summary(audit: Audit, audit_run: str) -> None:
    with open_warehouse(read_only=True) as con:
        rows = con.execute(
            """
            select s.subject_kind, s.subject_name, s.subject_version, s.study_type, s.status, s.reason,
                count(f.finding) as n_findings,
                count(*) filter (where f.verdict = 'significant') as n_significant
            from raw.audit_subjects as s
            left join main.subject_findings as f
                on s.run_id = f.run_id and s.subject_id = f.subject_id and s.study_type = f.study_type
            where s.audit_run_id = ?
            group by all
            order by s.subject_kind, s.subject_name, s.subject_version, s.study_type
            """,
            [audit_run],
        ).fetchall()
    policy = f"{audit.policy.name} over all tested findings, {alpha_text(audit.policy.alpha)}"
    print(f"[audit {audit.name}] run {audit_run}: {policy}")
    for kind, name, version, study_type, status, reason, n_findings, n_significant in rows:
        label = f"{kind} {name}" + (f" {version}" if version else "")
        if status == "measured":
            print(f"  {label}: {study_type}: {n_significant} of {n_findings} findings significant")
        else:
            print(f"  {label}: {study_type}: {status} ({reason})")
    query = f"select * from subject_findings where audit_run_id = '{audit_run}'"
    print(f'[audit {audit.name}] next: biaswh sql "{query}"')
