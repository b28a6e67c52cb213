"""Study ingest sources for WEAT: ``[[ingest]] source = "weat_tests"`` and ``source = "word_vectors"``."""

from __future__ import annotations

from biaswh.ingest.common.versions import IngestResult, latest_version
from biaswh.ingest.weat.sentence_vectors import DEFAULT_TEMPLATES
from biaswh.ingest.weat.weat_tests import load_weat_tests
from biaswh.ingest.weat.word_vectors import load_word_vectors
from biaswh.warehouse.errors import UserError
from biaswh.warehouse.runs.study import register_ingester
from biaswh.warehouse.settings.config_schema import FILE, STRING, STRINGS, ListOf, OneOf
from biaswh.warehouse.settings.study_schema import ingest_step


@register_ingester("weat_tests", options=ingest_step({"name": STRING}))
def ingest_weat_tests(con, study, step: dict) -> IngestResult:
    """``path`` is a YAML/JSON definition file or ``builtin:caliskan2017``; optional ``name``."""
    path = step["path"] if str(step["path"]).startswith("builtin:") else study.resolve(step["path"])
    return load_weat_tests(con, path, name=step.get("name"))


def _words_of_test_sets(con, test_sets: list[str]) -> list[str]:
    """Every listed word of the latest version of each named test set (for sentence encoders)."""
    latest = {name: latest_version(con, "weat_tests", name) for name in test_sets}
    missing = sorted(name for name, version in latest.items() if version is None)
    if missing:
        raise UserError(
            f"words_from names test set(s) not loaded yet: {', '.join(missing)}"
            ' (put their [[ingest]] source = "weat_tests" steps first)'
        )
    rows = con.execute(
        "select distinct w.word from raw.weat_test_words w"
        " inner join (select unnest(?) as test_set, unnest(?) as source_version) as latest"
        " on w.test_set = latest.test_set and w.source_version = latest.source_version"
        " order by w.word",
        [list(latest), list(latest.values())],
    ).fetchall()
    return [r[0] for r in rows]


@register_ingester(
    "word_vectors",
    options=ingest_step(
        {
            "name": STRING,
            "format": STRING,
            "table": STRING,
            "words_from": STRINGS,
            "templates": STRINGS,
            "precomputed": OneOf((FILE, ListOf(FILE)), "a path or a list of paths"),
        },
        required=("name",),
    ),
)
def ingest_word_vectors(con, study, step: dict) -> IngestResult:
    """``path``, ``name``, optional ``format``, ``table``; sentence encoders take ``words_from``, ``templates``
    and ``precomputed`` (Parquet vector files, relative to the config, imported before anything is encoded)."""
    if "name" not in step:
        raise UserError(f'{study.path}: [[ingest]] source = "word_vectors" needs a name')
    fmt = step.get("format", "auto")
    precomputed = step.get("precomputed", [])
    precomputed = tuple(study.resolve(p) for p in ([precomputed] if isinstance(precomputed, str) else precomputed))
    if fmt == "sentence_encoder":
        words = _words_of_test_sets(con, list(step.get("words_from", [])))
        return load_word_vectors(
            con,
            study.resolve(step["path"]),
            name=step["name"],
            format=fmt,
            words=words,
            templates=tuple(step.get("templates", DEFAULT_TEMPLATES)),
            precomputed=precomputed,
        )
    return load_word_vectors(
        con,
        study.resolve(step["path"]),
        name=step["name"],
        format=fmt,
        table=step.get("table"),
        precomputed=precomputed,
    )
