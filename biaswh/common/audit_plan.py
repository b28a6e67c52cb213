"""The parts every planned study of an audit shares: what a planned run and a skipped pair are,
the head of a study config (the audit's seed and verdict policy), and how subjects are batched into runs."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from biaswh.common.audit_config import Audit
from biaswh.common.audit_data import described
from biaswh.common.audit_subjects import Subject


@dataclass(frozen=True)
class PlannedStudy:
    """One study run of an audit: its type, config (a TOML table tree) and the subjects it measures."""

    study_type: str
    name: str
    config: dict
    members: tuple[tuple[Subject, str], ...]  # (subject, measured_as)


@dataclass(frozen=True)
class Skipped:
    """A subject and study type the audit does not run: ``does not apply`` or ``not run``, and why."""

    subject: Subject
    study_type: str
    status: str
    reason: str


def study_head(audit: Audit, suffix: str, description: str, *, jobs: list[str], analysis: list[str]) -> dict:
    """A planned study config's ``[study]`` (``<audit>__<suffix>``, the audit's data and seed) and ``[verdicts]``."""
    return {
        "study": {
            "name": f"{audit.name}__{suffix}",
            "description": f"Audit {audit.name}: {description} ({described(audit.data)})",
            "data": audit.data,
            "seed": audit.seed,
            "jobs": jobs,
            "analysis": analysis,
        },
        "verdicts": {"adjustment": "bh" if audit.policy.method == "fdr_bh" else "holm", "alpha": audit.policy.alpha},
    }


def subject_batches(
    subjects: list[Subject], key: Callable[[Subject], str], shared: tuple[str, ...]
) -> list[list[Subject]]:
    """Subjects grouped so that no run holds two with one ``key`` or differing ``shared`` settings."""
    found: list[list[Subject]] = []
    for subject in subjects:
        for batch in found:
            clash = any(key(other) == key(subject) for other in batch) or any(
                name in subject.configuration
                and name in other.configuration
                and subject.configuration[name] != other.configuration[name]
                for other in batch
                for name in shared
            )
            if not clash:
                batch.append(subject)
                break
        else:
            found.append([subject])
    return found


def numbered(base: str, number: int, total: int) -> str:
    """``base``, or ``base_<number>`` when the study type takes more than one run."""
    return base if total == 1 else f"{base}_{number}"


def file_path(value) -> str:
    """A configuration's file value: the path (files are recorded with their sha256)."""
    return value["path"] if isinstance(value, dict) else value
