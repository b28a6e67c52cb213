"""The building blocks of a config schema and the checker that walks a parsed TOML against one.

The types (:class:`Scalar`, :class:`ListOf`, :class:`Table`, ...) describe shapes; the
:class:`Checker` refuses the first unknown key or wrongly typed value with the config file and
the key's path and a did-you-mean. The study schema itself is ``warehouse/study_schema.py``.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from pathlib import Path

from warehouse.errors import UserError


@dataclass(frozen=True)
class Scalar:
    """A TOML string, integer, number (integer or float), boolean, or anything (``any``)."""

    kind: str


@dataclass(frozen=True)
class ListOf:
    item: object


@dataclass(frozen=True)
class Table:
    """A table with known keys (``required`` among them)."""

    keys: dict
    required: tuple[str, ...] = ()


@dataclass(frozen=True)
class MapOf:
    """A table whose keys are the user's (e.g. variant labels), each value of one type."""

    value: object


@dataclass(frozen=True)
class ArrayOfTables:
    item: Table


@dataclass(frozen=True)
class Choice:
    """One of a few named values (e.g. a clean-up rule set)."""

    values: tuple


@dataclass(frozen=True)
class OneOf:
    """The first option whose shape fits wins (e.g. a string or a list of strings)."""

    options: tuple
    description: str = field(default="")


STRING, INTEGER, NUMBER, BOOLEAN, ANY = (Scalar(k) for k in ("string", "integer", "number", "boolean", "any"))
STRINGS, NUMBERS = ListOf(STRING), ListOf(NUMBER)
STRING_MAP = MapOf(STRING)

_KIND_NAMES = {"string": "a string", "integer": "an integer", "number": "a number", "boolean": "true or false"}


def _describe(spec) -> str:
    if isinstance(spec, Scalar):
        return _KIND_NAMES.get(spec.kind, "a value")
    if isinstance(spec, ListOf):
        return "a list of " + {
            "string": "strings",
            "integer": "integers",
            "number": "numbers",
            "boolean": "booleans",
        }.get(getattr(spec.item, "kind", ""), "values")
    if isinstance(spec, OneOf):
        return spec.description or " or ".join(_describe(o) for o in spec.options)
    if isinstance(spec, Choice):
        return "one of " + ", ".join(repr(v) for v in spec.values)
    if isinstance(spec, ArrayOfTables):
        return "an array of tables ([[...]])"
    return "a table"


def _fits_scalar(kind: str, value) -> bool:
    if kind == "any":
        return True
    if kind == "boolean":
        return isinstance(value, bool)
    if isinstance(value, bool):
        return False  # True is an int to Python, never a number to a study
    return {
        "string": isinstance(value, str),
        "integer": isinstance(value, int),
        "number": isinstance(value, (int, float)),
    }[kind]


def _fits(spec, value) -> bool:
    """Whether ``value`` has the outer shape of ``spec`` (for :class:`OneOf`)."""
    if isinstance(spec, Scalar):
        return _fits_scalar(spec.kind, value)
    if isinstance(spec, Choice):
        return isinstance(value, str) and value in spec.values
    if isinstance(spec, ListOf):
        return isinstance(value, list) and all(_fits(spec.item, v) for v in value)
    if isinstance(spec, (Table, MapOf)):
        return isinstance(value, dict)
    return isinstance(value, list) and all(isinstance(v, dict) for v in value)


def suggestion(key: str, known, *, brackets: bool = False) -> str:
    """`` (did you mean 'x'?)`` when ``key`` is close to one of ``known``, else an empty string."""
    close = difflib.get_close_matches(key, sorted(known), n=1, cutoff=0.6)
    if not close:
        return ""
    return f" (did you mean [{close[0]}]?)" if brackets else f" (did you mean '{close[0]}'?)"


class Checker:
    def __init__(self, path: Path):
        self.path = path

    def fail(self, where: str, message: str):
        separator = " " if where.endswith("]") else ": "  # [retrieval] depth ... / ... retrieval.bm25: ...
        raise UserError(f"{self.path}: {where}{separator}{message}")

    def value(self, spec, value, where: str, key: str) -> None:
        """Check ``value`` of ``key`` in the table at ``where`` (e.g. ``[retrieval]``)."""
        if not where.startswith("[["):
            inner = f"[{where.strip('[]')}.{key}]"  # [retrieval] -> [retrieval.hybrid]
        else:  # inside an array of tables: [[evaluation.runs]] #2 -> ... #2 retrieval -> ... retrieval.bm25
            inner = f"{where} {key}" if where[-1].isdigit() or where.endswith(")") else f"{where}.{key}"
        if isinstance(spec, Table):
            if not isinstance(value, dict):
                self.fail(where, f"{key} must be {_describe(spec)}, got {value!r}")
            self.table(spec, value, inner)
        elif isinstance(spec, MapOf):
            if not isinstance(value, dict):
                self.fail(where, f"{key} must be a table, got {value!r}")
            for name, item in value.items():
                self.value(spec.value, item, inner, name)
        elif isinstance(spec, ArrayOfTables):
            if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
                self.fail(where, f"{key} must be {_describe(spec)}, got {value!r}")
            for number, item in enumerate(value, start=1):
                self.table(spec.item, item, f"[[{inner.strip('[]')}]] #{number}")
        elif isinstance(spec, OneOf):
            chosen = next((o for o in spec.options if _fits(o, value)), None)
            if chosen is None:
                self.fail(where, f"{key} must be {_describe(spec)}, got {value!r}")
            self.value(chosen, value, where, key)
        elif isinstance(spec, ListOf):
            if not isinstance(value, list):
                self.fail(where, f"{key} must be {_describe(spec)}, got {value!r}")
            for position, item in enumerate(value, start=1):
                if not _fits(spec.item, item):
                    self.fail(where, f"{key} must be {_describe(spec)}; item {position} is {item!r}")
        elif isinstance(spec, Choice) or not _fits_scalar(spec.kind, value):
            if not _fits(spec, value):
                self.fail(where, f"{key} must be {_describe(spec)}, got {value!r}")

    def table(self, spec: Table, values: dict, where: str) -> None:
        for key, value in values.items():
            if key not in spec.keys:
                self.fail(
                    where, f"unknown key '{key}'{suggestion(key, spec.keys)}; known: {', '.join(sorted(spec.keys))}"
                )
            self.value(spec.keys[key], value, where, key)
        missing = [k for k in spec.required if k not in values]
        if missing:
            self.fail(where, f"needs {' and '.join(missing)}")
