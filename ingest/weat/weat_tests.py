"""Ingest WEAT test definitions (YAML or JSON) into ``raw.weat_test_words``, one row per listed word.

A definition file names its test set and lists tests, each with four word sets::

    name: my_tests
    reference: "where the lists come from"
    tests:
      career_gender:
        title: "Career vs family, male vs female names"
        target_x: {label: male names, words: [John, Paul]}
        target_y: {label: female names, words: [Amy, Joan]}
        attribute_a: {label: career words, words: [salary, office]}
        attribute_b: {label: family words, words: [home, parents], excluded: []}

``excluded`` (optional) lists words of the set that the definition itself leaves out (e.g. the
names the paper excluded): they are recorded and shown, never used. ``builtin:caliskan2017``
loads the classic WEAT 1-10 shipped in ``ingest/weat/data/``.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import duckdb
import pyarrow as pa
import yaml

from biaswh.ingest.common.readers import read_utf8
from biaswh.ingest.common.versions import IngestResult, SourceFile, write_version
from biaswh.warehouse.errors import InputError
from biaswh.warehouse.runs.registry import file_sha256
from biaswh.warehouse.settings.config_schema import suggestion

ROLES = ("target_x", "target_y", "attribute_a", "attribute_b")
# The keys each level of a definition file may hold (another key is a typo, refused with its line).
FILE_KEYS = ("name", "reference", "tests")
TEST_KEYS = ("title", "reference", *ROLES)
SET_KEYS = ("label", "words", "excluded")
BUILTIN_FOLDER = Path(__file__).resolve().parent / "data"
TEST_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


def builtin_path(path: str | Path) -> Path:
    """``builtin:<name>`` names a definition file shipped with the package; anything else is a path."""
    text = str(path)
    if text.startswith("builtin:"):
        found = BUILTIN_FOLDER / f"{text.removeprefix('builtin:')}.yaml"
        if not found.is_file():
            shipped = sorted(p.stem for p in BUILTIN_FOLDER.glob("*.yaml"))
            raise InputError(text, f"no built-in WEAT test set of that name (shipped: {', '.join(shipped)})")
        return found
    return Path(text).expanduser().resolve()


def _parse(path: Path) -> dict:
    if path.suffix.lower() not in (".yaml", ".yml", ".json"):
        raise InputError(path, f"unsupported file type '{path.suffix or '(none)'}'; expected .yaml, .yml or .json")
    if not path.is_file():
        raise InputError(path, "no such file")
    text = read_utf8(path)
    try:
        document = json.loads(text) if path.suffix.lower() == ".json" else yaml.safe_load(text)
    except json.JSONDecodeError as exc:
        raise InputError(path, f"malformed JSON at line {exc.lineno} column {exc.colno}: {exc.msg}") from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1} column {mark.column + 1}" if mark else ""
        raise InputError(path, f"malformed YAML{where}: {getattr(exc, 'problem', exc)}") from None
    if not isinstance(document, dict) or not isinstance(document.get("tests"), dict) or not document["tests"]:
        raise InputError(path, "expected a mapping with a non-empty 'tests' mapping", field="tests")
    return document


def _key_line(path: Path, keys: list[str]) -> int | None:
    """The line of the key at ``keys`` (a path of mapping keys) in the file, for a message; None if not found."""
    try:
        node = yaml.compose(read_utf8(path))
    except yaml.YAMLError:
        return None
    for position, key in enumerate(keys):
        if not isinstance(node, yaml.MappingNode):
            return None
        found = next(((k, v) for k, v in node.value if str(k.value) == key), None)
        if found is None:
            return None
        if position == len(keys) - 1:
            return found[0].start_mark.line + 1
        node = found[1]
    return None


def _refuse_unknown_keys(path: Path, mapping: dict, known: tuple[str, ...], where: list[str]) -> None:
    """Refuse a key of ``mapping`` not in ``known``, naming the file, its line and its key path."""
    for key in mapping:
        if key not in known:
            field = ".".join([*where, str(key)])
            close = suggestion(str(key), known)
            raise InputError(
                path,
                f"unknown key {str(key)!r}{close}; known: {', '.join(known)}",
                row=_key_line(path, [*where, str(key)]),
                field=field,
            )


def _word_set(path: Path, test: str, role: str, value) -> tuple[str, list[str], set[str]]:
    field = f"tests.{test}.{role}"
    if not isinstance(value, dict):
        raise InputError(path, "missing word set (needs 'label' and 'words')", field=field)
    _refuse_unknown_keys(path, value, SET_KEYS, ["tests", str(test), role])
    label, words, excluded = value.get("label"), value.get("words"), value.get("excluded", []) or []
    if not isinstance(label, str) or not label.strip():
        raise InputError(path, "needs a non-empty label", field=f"{field}.label")
    if not isinstance(words, list) or not words:
        raise InputError(path, "needs a non-empty list of words", field=f"{field}.words")
    seen = set()
    for index, word in enumerate(words, start=1):
        if not isinstance(word, str) or not word.strip() or word != word.strip():
            raise InputError(
                path,
                f"word {index} must be a non-empty string without surrounding spaces, got {word!r}",
                field=f"{field}.words",
            )
        if word in seen:
            raise InputError(path, f"word {word!r} is listed twice", field=f"{field}.words")
        seen.add(word)
    if not isinstance(excluded, list) or not all(isinstance(word, str) for word in excluded):
        raise InputError(path, f"excluded must be a list of words, got {excluded!r}", field=f"{field}.excluded")
    if not set(excluded) <= seen:
        unknown = sorted(set(excluded) - seen)
        raise InputError(
            path, f"excluded words must be among the set's words (not listed: {unknown})", field=f"{field}.excluded"
        )
    return label.strip(), words, set(excluded)


def parse_weat_tests(path: Path) -> tuple[str, list[dict]]:
    """Check a definition file and return its set name and one record per listed word."""
    document = _parse(path)
    _refuse_unknown_keys(path, document, FILE_KEYS, [])
    reference = document.get("reference")
    if not isinstance(reference or "", str):
        raise InputError(path, f"must be text, got {type(reference).__name__}", field="reference")
    records = []
    for test, definition in document["tests"].items():
        if not TEST_NAME.match(str(test)):
            raise InputError(path, f"test name {test!r} must be letters, digits, '_', '-' or '.'", field="tests")
        if not isinstance(definition, dict):
            raise InputError(path, "must be a mapping with title and four word sets", field=f"tests.{test}")
        _refuse_unknown_keys(path, definition, TEST_KEYS, ["tests", str(test)])
        sets = {role: _word_set(path, test, role, definition.get(role)) for role in ROLES}
        for first, second in (("target_x", "target_y"), ("attribute_a", "attribute_b")):
            shared = sorted(set(sets[first][1]) & set(sets[second][1]))
            if shared:
                raise InputError(path, f"{first} and {second} share words {shared}", field=f"tests.{test}.{second}")
        for key in ("title", "reference"):  # text, never stored as a Python repr
            if not isinstance(definition.get(key) or "", str):
                got = type(definition[key]).__name__
                raise InputError(path, f"must be text, got {got}", field=f"tests.{test}.{key}")
        title = definition.get("title") or str(test)
        for role, (label, words, excluded) in sets.items():
            records += [
                {
                    "test": str(test),
                    "test_title": title,
                    "set_role": role,
                    "set_label": label,
                    "position": position,
                    "word": word,
                    "excluded_by_definition": word in excluded,
                    "reference": definition.get("reference", reference),
                }
                for position, word in enumerate(words, start=1)
            ]
    return str(document.get("name") or path.stem), records


def load_weat_tests(con: duckdb.DuckDBPyConnection, path: str | Path, *, name: str | None = None) -> IngestResult:
    """Load a WEAT definition file (or ``builtin:caliskan2017``) as a new version of its test set.

    Parameters
    ----------
    con : an open, writable warehouse connection.
    path : a YAML or JSON definition file, or ``builtin:<name>``.
    name : the test set's name (default: the file's ``name`` field, else its file name).
    """
    resolved = builtin_path(path)
    set_name, records = parse_weat_tests(resolved)
    test_set = name or set_name
    sha256 = file_sha256(resolved)
    table = pa.Table.from_pylist(records)

    source = SourceFile("weat_tests", test_set, resolved, sha256)
    return write_version(con, source, table, raw_table="weat_test_words", constants={"test_set": test_set})
