"""Study ingest sources for WEAT: ``[[ingest]] source = "weat_tests"`` and ``source = "word_vectors"``."""

from __future__ import annotations

from ingest.common.versions import IngestResult
from ingest.weat.sentence_vectors import DEFAULT_TEMPLATES
from ingest.weat.weat_tests import load_weat_tests
from ingest.weat.word_vectors import load_word_vectors
from warehouse.config_schema import STRING, STRINGS
from warehouse.errors import UserError
from warehouse.study import register_ingester
from warehouse.study_schema import ingest_step


@register_ingester("weat_tests", options=ingest_step({"name": STRING}))
def ingest_weat_tests(con, study, step: dict) -> IngestResult:
    """``path`` is a YAML/JSON definition file or ``builtin:caliskan2017``; optional ``name``."""
    path = step["path"] if str(step["path"]).startswith("builtin:") else study.resolve(step["path"])
    return load_weat_tests(con, path, name=step.get("name"))


def _words_of_test_sets(con, test_sets: list[str]) -> list[str]:
    """Every listed word of the latest version of each named test set (for sentence encoders)."""
    rows = con.execute(
        "with latest as (select source_name, max(version) as version from raw.source_versions"
        " where dataset = 'weat_tests' group by source_name)"
        " select distinct w.word from raw.weat_test_words w join latest"
        " on w.test_set = latest.source_name and w.source_version = latest.version"
        " where w.test_set in (select unnest(?)) order by w.word",
        [test_sets],
    ).fetchall()
    loaded = {
        r[0]
        for r in con.execute(
            "select distinct source_name from raw.source_versions where dataset = 'weat_tests'"
        ).fetchall()
    }
    missing = sorted(set(test_sets) - loaded)
    if missing:
        raise UserError(
            f"words_from names test set(s) not loaded yet: {', '.join(missing)}"
            ' (put their [[ingest]] source = "weat_tests" steps first)'
        )
    return [r[0] for r in rows]


@register_ingester(
    "word_vectors",
    options=ingest_step(
        {"name": STRING, "format": STRING, "table": STRING, "words_from": STRINGS, "templates": STRINGS},
        required=("name",),
    ),
)
def ingest_word_vectors(con, study, step: dict) -> IngestResult:
    """``path``, ``name``, optional ``format``, ``table``; sentence encoders take ``words_from`` and ``templates``."""
    if "name" not in step:
        raise UserError(f'{study.path}: [[ingest]] source = "word_vectors" needs a name')
    fmt = step.get("format", "auto")
    if fmt == "sentence_encoder":
        words = _words_of_test_sets(con, list(step.get("words_from", [])))
        return load_word_vectors(
            con,
            study.resolve(step["path"]),
            name=step["name"],
            format=fmt,
            words=words,
            templates=tuple(step.get("templates", DEFAULT_TEMPLATES)),
        )
    return load_word_vectors(con, study.resolve(step["path"]), name=step["name"], format=fmt, table=step.get("table"))
