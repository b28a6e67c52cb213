"""The subjects of an audit config: each kind's keys, the checks of its ``[[subjects]]`` and ``[[comparisons]]``.

A subject is who is audited (a retriever, an embedding or an LLM), known by its kind, name,
version and configuration; :mod:`biaswh.common.audit_config` reads the config whole and calls
:func:`check_subjects` and :func:`check_comparisons`. Every problem is one line naming the
file, the subject (``[[subjects]] #2``) and the key.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from biaswh.warehouse.relations.subjects import SUBJECT_KINDS, subject_id
from biaswh.warehouse.settings.config_schema import FILE, NON_NEGATIVE, SHARE, STRING, STRINGS, Checker, Choice, Table

_COMMON = {"kind": Choice(SUBJECT_KINDS), "name": STRING, "version": STRING, "description": STRING}
# The keys each kind of subject takes besides kind, name, version and description.
SUBJECT_KEYS: dict[str, dict] = {
    # a retriever of the retrieval job; dense and hybrid retrievers embed with `embedding`
    "retriever": {
        "retriever": STRING,
        "bm25": Table({"k1": NON_NEGATIVE, "b": SHARE, "epsilon": NON_NEGATIVE}),
        "embedding": Table({"provider": STRING, "model": STRING}),
    },
    # word vectors (a file) or a sentence encoder (hf:...), as a WEAT study's word_vectors step
    "embedding": {"path": FILE, "format": STRING, "templates": STRINGS},
    # an LLM known by its recorded generations of the silent-bias vignettes (a .jsonl file), and/or
    # served at an OpenAI-compatible endpoint (the recommendation runner asks it; the key only from
    # the environment variable api_key_env), optionally with its own pool of posts
    "llm": {
        "generations": FILE,
        "endpoint": STRING,
        "model": STRING,
        "api_key_env": STRING,
        "pool": FILE,
        "pool_features": FILE,
    },
}
_REQUIRED = {"retriever": ("retriever",), "embedding": ("path",), "llm": ()}
_ENVIRONMENT_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")
_COMPARISON_KEYS = {"baseline": STRING, "candidate": STRING}


@dataclass(frozen=True)
class Subject:
    """One audited subject: who it is (kind, name, version, configuration) and its stable id."""

    kind: str
    name: str
    version: str
    configuration: dict

    @property
    def config_hash(self) -> str:
        """sha256 of the configuration as canonical JSON (files by their content's sha256)."""
        return hashlib.sha256(json.dumps(self.configuration, sort_keys=True).encode("utf-8")).hexdigest()

    @property
    def subject_id(self) -> str:
        return subject_id(self.kind, self.name, self.version, self.config_hash)

    @property
    def label(self) -> str:
        """How the subject is named in a study's results and pages: its name, with its version if any."""
        return f"{self.name}-{self.version}" if self.version else self.name


@dataclass(frozen=True)
class Comparison:
    """Two subjects of one kind to compare: ``candidate`` against ``baseline``, and how they relate."""

    baseline: Subject
    candidate: Subject
    relation: str  # "versions of one subject" or "rivals (declared)"


def _configuration(audit_path: Path, kind: str, table: dict) -> dict:
    """What identifies the subject's configuration: its keys, a local file by its content's sha256."""
    configuration = {}
    for key, value in table.items():
        if key in _COMMON:
            continue
        if SUBJECT_KEYS[kind].get(key) is FILE and not str(value).startswith(("hf:", "builtin:")):
            file = (audit_path.parent / value).resolve()
            value = {"path": str(value), "sha256": hashlib.sha256(file.read_bytes()).hexdigest()}
        configuration[key] = value
    return configuration


def check_subjects(checker: Checker, path: Path, tables: list[dict]) -> list[Subject]:
    """The ``[[subjects]]`` tables of the audit config at ``path`` as subjects; each problem goes to ``checker``."""
    subjects, seen = [], {}
    for number, table in enumerate(tables, start=1):
        where = f"[[subjects]] #{number}"
        kind = table.get("kind")
        if kind not in SUBJECT_KINDS:
            checker.fail(where, f"kind must be one of {', '.join(map(repr, SUBJECT_KINDS))}, got {kind!r}")
            continue
        cleaned = checker.table(
            Table({**_COMMON, **SUBJECT_KEYS[kind]}, required=("name", *_REQUIRED[kind])), table, where
        )
        name, version = cleaned.get("name"), cleaned.get("version", "")
        if kind == "llm" and not _llm_problems(checker, where, table, cleaned):
            continue
        if name is None or any(key not in cleaned for key in _REQUIRED[kind]):
            continue
        for key, value in (("name", name), ("version", version)):
            if value and not _NAME.match(value):
                checker.fail(where, f"{key} {value!r}: use letters, digits, '.', '_' and '-' (it names files and runs)")
        subject = Subject(kind, name, version, _configuration(path, kind, cleaned))
        if (kind, subject.label) in seen:
            checker.fail(where, f"{kind} {subject.label!r} is already subject #{seen[kind, subject.label]}")
        seen[kind, subject.label] = number
        subjects.append(subject)
    return subjects


def _llm_problems(checker: Checker, where: str, table: dict, cleaned: dict) -> bool:
    """Whether an LLM subject is whole: recorded generations or an endpoint (or both), an endpoint
    without a key or user in it (the key is read from ``api_key_env`` only), a pool with its features."""
    fine = True
    if "generations" not in table and "endpoint" not in table:
        checker.fail(where, "an llm needs generations (recorded answers, .jsonl) or an endpoint (OpenAI-compatible)")
        fine = False
    endpoint = cleaned.get("endpoint")
    if endpoint is not None:
        parts = urlsplit(endpoint)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            checker.fail(where, f"endpoint {endpoint!r}: give an http:// or https:// base URL (e.g. .../v1)")
            fine = False
        elif parts.username or parts.password or parts.query or parts.fragment:
            checker.fail(
                where,
                "endpoint: no user, key or query in the URL (it is recorded); put the key in the environment"
                " variable api_key_env names",
            )
            fine = False
    for key in ("model", "api_key_env", "pool", "pool_features"):
        if key in table and "endpoint" not in table:
            checker.fail(where, f"{key} is for an endpoint: add endpoint, or remove {key}")
            fine = False
    if "api_key_env" in cleaned and not _ENVIRONMENT_NAME.match(cleaned["api_key_env"]):
        # the value is not echoed: it may be the key itself, written where its variable's name belongs
        checker.fail(where, "api_key_env: name an environment variable (letters, digits, _), never the key itself")
        fine = False
    if ("pool" in table) != ("pool_features" in table):
        checker.fail(where, "pool and pool_features go together: the posts and their feature,type table")
        fine = False
    return fine


def check_comparisons(checker: Checker, declared, subjects: list[Subject]) -> list[Comparison]:
    """Each subject's versions against the one declared before it, then the ``[[comparisons]]`` declared."""
    found: list[Comparison] = []
    previous: dict[tuple[str, str], Subject] = {}
    for subject in subjects:
        earlier = previous.get((subject.kind, subject.name))
        if earlier is not None:
            found.append(Comparison(earlier, subject, "versions of one subject"))
        previous[subject.kind, subject.name] = subject
    if not isinstance(declared, list) or not all(isinstance(table, dict) for table in declared):
        checker.fail("[[comparisons]]", "must be an array of tables ([[comparisons]])")
        return found
    by_label = {subject.label: subject for subject in subjects}
    known = ", ".join(repr(label) for label in by_label)
    for number, table in enumerate(declared, start=1):
        where = f"[[comparisons]] #{number}"
        cleaned = checker.table(Table(_COMPARISON_KEYS, required=("baseline", "candidate")), table, where)
        chosen = []
        for role in ("baseline", "candidate"):
            label = cleaned.get(role)
            if label is not None and label not in by_label:
                checker.fail(where, f"{role} {label!r} is no subject of this audit; its subjects: {known}")
            chosen.append(by_label.get(label))
        baseline, candidate = chosen
        if baseline is None or candidate is None:
            continue
        if baseline == candidate:
            checker.fail(where, f"compares {baseline.label!r} with itself")
        elif baseline.kind != candidate.kind:
            checker.fail(
                where, f"{baseline.label!r} is {baseline.kind}, {candidate.label!r} {candidate.kind}: compare one kind"
            )
        elif any({c.baseline.label, c.candidate.label} == {baseline.label, candidate.label} for c in found):
            checker.fail(where, f"{baseline.label!r} and {candidate.label!r} are already compared")
        else:
            found.append(Comparison(baseline, candidate, "rivals (declared)"))
    return found
