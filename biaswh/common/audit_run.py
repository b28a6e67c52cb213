"""``biaswh audit AUDIT.toml``: every study type that applies to each subject, one verdict policy for all.

The audit plans its study runs (:mod:`biaswh.common.audit_studies`), checks every config before
the first starts, runs them in one warehouse with the audit's seed, records what it did with
each subject and study type (``raw.audit_subjects``), compares the subjects it pairs (versions of
one subject, declared rivals: :mod:`biaswh.analysis.common.subject_comparisons`), then adjusts every
finding and comparison with a p-value together, as one family (the audit's ``[verdicts]``, Holm
at 0.05 by default), into ``analysis.audit_findings`` and ``analysis.audit_comparisons``;
``subject_findings`` then shows the audit's verdicts.
"""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl

from biaswh.analysis.common.store import replace_run_rows
from biaswh.analysis.common.subject_comparisons import COMPARISON_SCHEMA, compare_subjects, comparison_verdict
from biaswh.common.audit_config import Audit, load_audit
from biaswh.common.audit_plan import PlannedStudy, Skipped
from biaswh.common.audit_studies import plan_audit
from biaswh.common.audit_subjects import Subject
from biaswh.common.audit_summary import audit_headline
from biaswh.common.audit_toml import write_config
from biaswh.plugins import load_plugins
from biaswh.run_outcome import finish_or_fail
from biaswh.stats.multiple_comparisons import adjust_family, is_significant
from biaswh.stats.paired.mean_difference import paired_status
from biaswh.stats.verdicts import alpha_text
from biaswh.warehouse.database.command_lock import exclusive_command
from biaswh.warehouse.database.connection import open_warehouse
from biaswh.warehouse.database.transactions import transaction
from biaswh.warehouse.relations.contracts import publish_contract_views
from biaswh.warehouse.runs.registry import start_run
from biaswh.warehouse.runs.study import load_study
from biaswh.warehouse.settings.home import warehouse_paths


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


def _findings(con, audit_run: str, subject_id: str) -> dict[tuple[str, str], dict]:
    """A subject's headline findings in the audit: (study type, finding) -> the row of ``subject_findings``.

    A metric reported beside a headline (WEAT's RND, MAC, ...) is not compared: it pairs no units of
    its own, and its test's target words are compared on d.
    """
    cursor = con.execute(
        "select study_type, finding, dimension, run_id, measured_as from main.subject_findings"
        " where audit_run_id = ? and subject_id = ? and is_headline",
        [audit_run, subject_id],
    )
    names = [d[0] for d in cursor.description]
    return {(row[0], row[1]): dict(zip(names, row)) for row in cursor.fetchall()}


def _comparisons(con, audit: Audit, audit_run: str) -> pl.DataFrame:
    frames = [
        compare_subjects(
            con,
            baseline=(c.baseline.subject_id, c.baseline.label),
            candidate=(c.candidate.subject_id, c.candidate.label),
            found_baseline=_findings(con, audit_run, c.baseline.subject_id),
            found_candidate=_findings(con, audit_run, c.candidate.subject_id),
            relation=c.relation,
            seed=audit.seed,
        )
        for c in audit.comparisons
    ]
    return pl.concat(frames) if frames else pl.DataFrame(schema=COMPARISON_SCHEMA)


def adjust_audit_findings(con, audit: Audit, audit_run: str) -> pl.DataFrame:
    """Adjust every tested finding and comparison of the audit together, as one family.

    Writes ``analysis.audit_findings`` and ``analysis.audit_comparisons`` (with the verdicts
    better, worse or no evidence of a difference) and returns the findings.
    """
    publish_contract_views(con)  # subject_findings over the tables the audit's runs just wrote
    tested = con.execute(
        "select run_id as study_run_id, subject_id, study_type, finding, p_value from main.subject_findings"
        " where audit_run_id = ? and p_value is not null order by study_type, subject_id, finding",
        [audit_run],
    ).pl()
    compared = _comparisons(con, audit, audit_run)
    is_tested = compared["p_value"].is_not_null()
    p_values = [*tested["p_value"].to_list(), *compared.filter(is_tested)["p_value"].to_list()]
    adjusted = adjust_family(p_values, method=audit.policy.method, alpha=audit.policy.alpha)
    n_comparisons = int(is_tested.sum())
    tests = (
        f"{adjusted.n_tests} tests of audit {audit.name} ({tested.height} findings, {n_comparisons} comparisons)"
        if n_comparisons
        else f"{adjusted.n_tests} tested findings of audit {audit.name}"
    )
    policy = f"{audit.policy.name} over the {tests}, {alpha_text(audit.policy.alpha)}"
    family = dict(adjustment=audit.policy.name, alpha=audit.policy.alpha, family_size=adjusted.n_tests, policy=policy)
    frame = tested.with_columns(
        pl.lit(audit_run).alias("run_id"),
        pl.Series("p_adjusted", adjusted.p_values_adjusted[: tested.height], dtype=pl.Float64),
        pl.Series("is_significant", adjusted.rejected[: tested.height], dtype=pl.Boolean),
        *(pl.lit(value).alias(name) for name, value in family.items()),
    )
    p_adjusted = iter(adjusted.p_values_adjusted[tested.height :])
    comparison_p = [next(p_adjusted) if tested_row else None for tested_row in is_tested.to_list()]
    significant = [
        p is not None and is_significant(p, audit.policy.alpha) and paired_status(n) == "tested"
        for p, n in zip(comparison_p, compared["n_units"].to_list())
    ]
    verdicts = [
        comparison_verdict(base, cand, is_significant=flag)
        for base, cand, flag in zip(compared["baseline_mean"], compared["candidate_mean"], significant)
    ]
    comparisons = compared.with_columns(
        pl.lit(audit_run).alias("run_id"),
        pl.Series("p_adjusted", comparison_p, dtype=pl.Float64),
        pl.Series("is_significant", significant, dtype=pl.Boolean),
        pl.Series("verdict", verdicts, dtype=pl.String),
        *(pl.lit(value).alias(name) for name, value in family.items()),
    )
    with transaction(con):
        replace_run_rows(con, "audit_findings", audit_run, frame)
        replace_run_rows(con, "audit_comparisons", audit_run, comparisons)
    publish_contract_views(con)  # now joined with the audit's verdicts
    return frame


def _run_all(audit: Audit, audit_run: str, planned: list[PlannedStudy], configs: list[Path], skipped: list[Skipped]):
    from biaswh.pipeline import run_loaded_study

    with open_warehouse() as con, transaction(con):
        _record(
            con, [_subject_row(audit_run, s.subject, s.study_type, status=s.status, reason=s.reason) for s in skipped]
        )
    for number, (study, config) in enumerate(zip(planned, configs), start=1):
        print(f"== audit {audit.name}: study {number}/{len(planned)}: {study.study_type} ({config})", flush=True)
        # No site per study run: the audit draws it once, at the end, with every run in it (each
        # draw renders every page; an audit of five study runs drew five sites and kept one).
        run_id, _ = run_loaded_study(load_study(config, check_files=True), build_site=False)
        with open_warehouse() as con, transaction(con):
            _record(
                con,
                [
                    _subject_row(audit_run, s, study.study_type, status="measured", run_id=run_id, measured_as=name)
                    for s, name in study.members
                ],
            )
    with open_warehouse() as con:
        adjust_audit_findings(con, audit, audit_run)


def run_audit(path: str, *, build_site: bool = True) -> Path | None:
    """Run the audit ``path`` end to end; print what was measured and what not; return the site's index
    (``build_site=False``: no dashboards, None)."""
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
        "verdicts": {"adjustment": "bh" if audit.policy.method == "fdr_bh" else "holm", "alpha": audit.policy.alpha},
        "subjects": [{"subject_id": s.subject_id, "kind": s.kind, "label": s.label} for s in audit.subjects],
        "comparisons": [
            {"baseline": c.baseline.label, "candidate": c.candidate.label, "relation": c.relation}
            for c in audit.comparisons
        ],
        "studies": [str(config) for config in configs],
        "description": audit.description,
    }
    with exclusive_command(f"biaswh audit {path}"):
        with open_warehouse() as con:
            audit_run = start_run(con, kind="audit", name=audit.name, parameters=parameters).run_id
        finish_or_fail(audit_run, lambda: _run_all(audit, audit_run, planned, configs, skipped))
        index = dashboards() / "index.html" if build_site else None
    _print_summary(audit, audit_run)
    return index


def _print_summary(audit: Audit, audit_run: str) -> None:
    with open_warehouse(read_only=True) as con:
        rows = con.execute(
            """
            select s.subject_kind, s.subject_name, s.subject_version, s.study_type, s.status, s.reason,
                count(f.finding) as n_findings,
                count(*) filter (where f.verdict = 'significant') as n_significant,
                count(*) filter (where f.verdict in ('significant', 'no evidence')) as n_tested
            from raw.audit_subjects as s
            left join main.subject_findings as f
                on s.run_id = f.run_id and s.subject_id = f.subject_id and s.study_type = f.study_type
            where s.audit_run_id = ?
            group by all
            order by s.subject_kind, s.subject_name, s.subject_version, s.study_type
            """,
            [audit_run],
        ).fetchall()
        headline = audit_headline(con, audit_run)
    print(f"[audit {audit.name}] run {audit_run}: {headline}")
    lines: dict[str, list[str]] = {}
    not_applying: dict[str, list[str]] = {}
    for kind, name, version, study_type, status, reason, n_findings, n_significant, n_tested in rows:
        label = f"{kind} {name}" + (f" {version}" if version else "")
        said = lines.setdefault(label, [])
        if status == "measured" and n_tested:
            untested = f"; {n_findings - n_tested} not tested" if n_findings > n_tested else ""
            said.append(f"{study_type}: {n_significant} of {n_tested} tested findings significant{untested}")
        elif status == "measured":
            said.append(f"{study_type}: {n_findings} findings, none tested (descriptive or not computed)")
        elif status == "does not apply":  # each reason is on the subject's profile page
            not_applying.setdefault(label, []).append(study_type)
        else:
            said.append(f"{study_type}: {status} ({reason})")
    for label, said in lines.items():
        if label in not_applying:
            said.append(f"does not apply to its kind: {', '.join(not_applying[label])}")
        print("\n".join(f"  {label}: {line}" for line in said))
    if audit.comparisons:
        with open_warehouse(read_only=True) as con:
            compared = con.execute(
                "select baseline_label, candidate_label, verdict, count(*) from analysis.audit_comparisons"
                " where run_id = ? group by all order by all",
                [audit_run],
            ).fetchall()
        for baseline, candidate, verdict, n in compared:
            print(f"  {candidate} against {baseline}: {verdict} in {n} finding{'s' if n != 1 else ''}")
    query = f"select * from subject_findings where audit_run_id = '{audit_run}'"
    print(f'[audit {audit.name}] next: biaswh sql "{query}"')
