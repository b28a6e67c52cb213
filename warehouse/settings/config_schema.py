"""The building blocks of a config schema and the checker that walks a parsed TOML against one.

The types (:class:`Scalar`, :class:`Number`, :class:`ListOf`, :class:`Table`, ...) describe
shapes and ranges; the :class:`Checker` collects every unknown key, wrongly typed or out-of-range
value (NaN and infinities included: TOML spells them ``nan`` and ``inf``) and missing file, each
with the config file, the key's path and a did-you-mean. The study schema itself is
``warehouse/settings/study_schema.py``; the CLI's numeric options use the same :class:`Number` shapes.
"""

from __future__ import annotations

import difflib
import math
from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True)
class Scalar:
    """A TOML string, boolean, or anything (``any``); numbers are :class:`Number`."""

    kind: str


@dataclass(frozen=True)
class Number:
    """A finite number (``integer``: a whole one) within ``[minimum, maximum]``.

    ``above`` / ``below`` make a bound exclusive (``Number(minimum=0, above=True)``: more than 0).
    NaN and the infinities are never numbers to a study.
    """

    integer: bool = False
    minimum: float | None = None
    maximum: float | None = None
    above: bool = False
    below: bool = False

    def describe(self) -> str:
        """E.g. ``an integer >= 1``, ``a number in (0, 1)``, ``a number > 0``."""
        noun = "an integer" if self.integer else "a number"
        low, high = (None if v is None else str(int(v)) if float(v).is_integer() else str(v) for v in self.bounds)
        if low is not None and high is not None:
            return f"{noun} in {'(' if self.above else '['}{low}, {high}{')' if self.below else ']'}"
        if low is not None:
            return f"{noun} {'>' if self.above else '>='} {low}"
        if high is not None:
            return f"{noun} {'<' if self.below else '<='} {high}"
        return noun

    @property
    def bounds(self) -> tuple:
        return self.minimum, self.maximum

    def problem(self, value) -> str | None:
        """Why ``value`` does not fit (``must be ..., got ...``), or None when it does."""
        if isinstance(value, bool) or not isinstance(value, (int, float)):  # True is an int to Python only
            return f"must be {self.describe()}, got {value!r}"
        if self.integer and not isinstance(value, int):
            return f"must be {self.describe()}, got {value!r}"
        if not math.isfinite(value):
            return f"must be {self.describe()} (not NaN or infinite), got {value!r}"
        low, high = self.minimum, self.maximum
        if low is not None and (value <= low if self.above else value < low):
            return f"must be {self.describe()}, got {value!r}"
        if high is not None and (value >= high if self.below else value > high):
            return f"must be {self.describe()}, got {value!r}"
        return None


@dataclass(frozen=True)
class ExistingPath:
    """A path (relative to the config's folder) that must exist when files are checked; ``hf:`` and
    ``builtin:`` names pass."""


@dataclass(frozen=True)
class ListOf:
    """A config array whose items all follow one rule."""

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
    """A config array of tables (``[[name]]``), each checked against one table schema."""

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


STRING, BOOLEAN, ANY = (Scalar(k) for k in ("string", "boolean", "any"))
INTEGER, NUMBER = Number(integer=True), Number()
# Common ranges: counts of things, shares, probabilities strictly inside (0, 1), seeds.
POSITIVE_INTEGER, COUNT = Number(integer=True, minimum=1), Number(integer=True, minimum=0)
SHARE, OPEN_SHARE = Number(minimum=0, maximum=1), Number(minimum=0, maximum=1, above=True, below=True)
NON_NEGATIVE, POSITIVE = Number(minimum=0), Number(minimum=0, above=True)
SEED = COUNT
# Hits kept per query (a retrieval depth, a cutoff k): DuckDB stores ranks as 32-bit integers,
# and a deeper list is no evaluation.
MAX_DEPTH = 10_000
CUTOFF = Number(integer=True, minimum=1, maximum=MAX_DEPTH)
# How requests to a model endpoint are sent (study configs and the CLI's options alike).
RETRIES, CONCURRENCY = Number(integer=True, minimum=0, maximum=100), Number(integer=True, minimum=1, maximum=256)
BACKOFF_SECONDS = Number(minimum=0, maximum=3600)
TIMEOUT_SECONDS = Number(minimum=0, maximum=86_400, above=True)
TEMPERATURE, TOP_P = Number(minimum=0, maximum=2), Number(minimum=0, maximum=1, above=True)
STRINGS, NUMBERS = ListOf(STRING), ListOf(NUMBER)
STRING_MAP = MapOf(STRING)
FILE = ExistingPath()

_KIND_NAMES = {"string": "a string", "boolean": "true or false"}
_PLURALS = {"string": "strings", "boolean": "booleans"}


def _describe(spec) -> str:
    if isinstance(spec, Scalar):
        return _KIND_NAMES.get(spec.kind, "a value")
    if isinstance(spec, Number):
        return spec.describe()
    if isinstance(spec, ExistingPath):
        return "a path"
    if isinstance(spec, ListOf):
        if isinstance(spec.item, Number):
            return "a list of " + ("integers" if spec.item.integer else "numbers")
        return "a list of " + _PLURALS.get(getattr(spec.item, "kind", ""), "values")
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
    return isinstance(value, str)


def _fits(spec, value) -> bool:
    """Whether ``value`` has the outer shape of ``spec`` (for :class:`OneOf`; a number's range aside)."""
    if isinstance(spec, Scalar):
        return _fits_scalar(spec.kind, value)
    if isinstance(spec, Number):
        return not isinstance(value, bool) and isinstance(value, int if spec.integer else (int, float))
    if isinstance(spec, ExistingPath):
        return isinstance(value, str)
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


# Names that loaders resolve themselves (Hugging Face ids, the built-in WEAT tests), never files.
_NOT_FILES = ("hf:", "builtin:")
_DROP = object()  # what a value that failed its check leaves in the cleaned config: nothing


class Checker:
    """Walks a parsed config against a schema and collects every problem (``problems``), each one line.

    :meth:`table` returns the table without the values that failed, so later checks of what the
    values mean see only well-shaped ones. ``check_files``: an :class:`ExistingPath` must exist.
    """

    def __init__(self, path: Path, *, check_files: bool = False):
        self.path = path
        self.check_files = check_files
        self.problems: list[str] = []

    def fail(self, where: str, message: str):
        separator = " " if where.endswith("]") else ": "  # [retrieval] depth ... / ... retrieval.bm25: ...
        self.problems.append(f"{self.path}: {where}{separator}{message}")
        return _DROP

    def value(self, spec, value, where: str, key: str):
        """Check ``value`` of ``key`` in the table at ``where`` (e.g. ``[retrieval]``); return it cleaned,
        or ``_DROP`` when it failed."""
        if not where.startswith("[["):
            inner = f"[{where.strip('[]')}.{key}]"  # [retrieval] -> [retrieval.hybrid]
        else:  # inside an array of tables: [[evaluation.runs]] #2 -> ... #2 retrieval -> ... retrieval.bm25
            inner = f"{where} {key}" if where[-1].isdigit() or where.endswith(")") else f"{where}.{key}"
        if isinstance(spec, Table):
            if not isinstance(value, dict):
                return self.fail(where, f"{key} must be {_describe(spec)}, got {value!r}")
            return self.table(spec, value, inner)
        if isinstance(spec, MapOf):
            if not isinstance(value, dict):
                return self.fail(where, f"{key} must be a table, got {value!r}")
            items = {name: self.value(spec.value, item, inner, name) for name, item in value.items()}
            return {name: item for name, item in items.items() if item is not _DROP}
        if isinstance(spec, ArrayOfTables):
            if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
                return self.fail(where, f"{key} must be {_describe(spec)}, got {value!r}")
            return [self.table(spec.item, item, f"[[{inner.strip('[]')}]] #{n}") for n, item in enumerate(value, 1)]
        if isinstance(spec, OneOf):
            chosen = next((o for o in spec.options if _fits(o, value)), None)
            if chosen is None:
                return self.fail(where, f"{key} must be {_describe(spec)}, got {value!r}")
            return self.value(chosen, value, where, key)
        if isinstance(spec, ListOf):
            if not isinstance(value, list):
                return self.fail(where, f"{key} must be {_describe(spec)}, got {value!r}")
            failed = False
            for position, item in enumerate(value, start=1):
                if not _fits(spec.item, item):
                    self.fail(where, f"{key} must be {_describe(spec)}; item {position} is {item!r}")
                    failed = True
                elif isinstance(spec.item, Number) and spec.item.problem(item):
                    self.fail(where, f"{key} item {position} {spec.item.problem(item)}")
                    failed = True
                elif isinstance(spec.item, ExistingPath):
                    failed = self._missing(item, where, f"{key} item {position}") or failed
            return _DROP if failed else value
        if isinstance(spec, Number):
            problem = spec.problem(value)
            return self.fail(where, f"{key} {problem}") if problem else value
        if not _fits(spec, value):
            return self.fail(where, f"{key} must be {_describe(spec)}, got {value!r}")
        if isinstance(spec, ExistingPath) and self._missing(value, where, key):
            return _DROP
        return value

    def _missing(self, value: str, where: str, key: str) -> bool:
        """Whether file checks are on and the path ``value`` (relative to the config) does not exist."""
        if not self.check_files or value.startswith(_NOT_FILES):
            return False
        resolved = (self.path.parent / value).resolve()
        if resolved.exists():
            return False
        self.fail(where, f"{key}: no such file or folder {value!r} (looked for {resolved})")
        return True

    def table(self, spec: Table, values: dict, where: str) -> dict:
        """Check a table's keys and values; return it without the keys that failed."""
        cleaned = {}
        for key, value in values.items():
            if key not in spec.keys:
                known = ", ".join(sorted(spec.keys))
                self.fail(where, f"unknown key '{key}'{suggestion(key, spec.keys)}; known: {known}")
                continue
            checked = self.value(spec.keys[key], value, where, key)
            if checked is not _DROP:
                cleaned[key] = checked
        missing = [k for k in spec.required if k not in values]
        if missing:
            self.fail(where, f"needs {' and '.join(missing)}")
        return cleaned
