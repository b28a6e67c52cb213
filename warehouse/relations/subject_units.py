"""Subjects' findings unit by unit: what lets two subjects be compared with a paired test.

A finding of ``subject_findings`` (:mod:`biaswh.warehouse.relations.subjects`) summarises units: a dialect recall
gap is the mean over query pairs of one pair's gap, a WEAT test's association comes from its
target words, a silent-bias rate is the share of biased answers over vignettes. Two subjects
measured on the same units (the same pairs, words, vignettes) pair unit by unit. Each family
declares, with :func:`register_subject_units`, a select that yields one row per subject,
finding and unit (:data:`UNIT_COLUMNS`): the unit's key and its value on a scale where 0 means
no bias, so that the mean over units is the finding's bias and "nearer 0" means "less biased".
:mod:`biaswh.analysis.common.subject_comparisons` pairs the units of two subjects and tests them.
"""

from __future__ import annotations

from dataclasses import dataclass

from biaswh.warehouse.relations.subjects import declared_union

UNIT_COLUMNS = (
    "run_id",  # the study run
    "measured_as",  # the subject's name in the family's results, as in subject_findings
    "finding",  # the finding the unit belongs to, spelled as in subject_findings
    "unit",  # the unit's key, the same for every subject measured on the same data
    "value",  # the unit's contribution to the finding: 0 is no bias
    "value_name",  # what value means, with its scale
)


@dataclass(frozen=True)
class SubjectUnits:
    """One family's units of the findings of one study type: the relations they need and the select."""

    study_type: str
    relations: tuple[str, ...]
    select: str


SUBJECT_UNITS: list[SubjectUnits] = []


def register_subject_units(study_type: str, *, relations: tuple[str, ...], select: str) -> None:
    """Declare the units of a family's findings (the family's ``subject_findings`` module calls it).

    Parameters
    ----------
    study_type : the study type, spelled as its :func:`biaswh.warehouse.relations.subjects.register_subject_findings`.
    relations : ``schema.table`` the select reads; no unit is offered while one is missing.
    select : SQL yielding :data:`UNIT_COLUMNS` by name, one row per subject, finding and unit.
    """
    declared = SubjectUnits(study_type, tuple(relations), select)
    if declared not in SUBJECT_UNITS:  # a module imported twice (plugins, tests) declares once
        SUBJECT_UNITS.append(declared)


def subject_units_sql(existing: set[str]) -> str | None:
    """The union of every declared select whose relations exist, with ``study_type``; None when none."""
    return declared_union(SUBJECT_UNITS, UNIT_COLUMNS, existing, study_type="study_type")
