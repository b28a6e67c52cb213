"""The schema of a study config: every table, key and type a study TOML may hold.

:func:`check_config` walks a parsed config against :data:`STUDY_SCHEMA` and refuses the first
unknown key or wrongly typed value with the config file and the key's path, e.g.
``studies/x.toml: [retrieval.hybrid] unknown key 'weigths' (did you mean 'weights'?)``.
It checks shape only (names and types); the consumers check values (a retriever's name, a
share between 0 and 1). Each table lists the keys its consumer reads:

- ``[study]``: :func:`warehouse.study.load_study`;
- ``[[ingest]]``: one key set per source (:data:`INGEST_SOURCES`), the keyword options of
  the source's loader (``ingest/squad.py``, ``ingest/pairs.py``, the ``register_ingester``
  functions of ``ingest/jobs/*.py``);
- ``[parameters]`` (older spelling ``[dbt_vars]``): checked against dbt's vars by
  :mod:`warehouse.run_parameters`, so any key passes here;
- ``[retrieval]``: ``compute/retrieval/config.py``, ``compute/retrieval/embeddings.py``;
- ``[evaluation]``: ``compute/steps/evaluation_runs.py`` and ``analysis/steps/evaluation.py``;
- ``[dialect]``, ``[weat]``, ``[silent_bias]``, ``[recsys]``: their ``analysis/steps`` module.
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

RETRIEVAL = Table(
    {
        "retrievers": STRINGS,
        "depth": INTEGER,
        "query_sets": STRINGS,
        "timing": STRING,
        "drop_documents_fraction": NUMBER,
        "tokenizer": Table({"pattern": STRING, "lowercase": BOOLEAN}),
        "bm25": Table({"k1": NUMBER, "b": NUMBER, "epsilon": NUMBER}),
        # provider "local": model, batch_size; provider "openai": the rest (OpenAIProvider's options)
        "embedding": Table(
            {
                "provider": STRING,
                "model": STRING,
                "batch_size": INTEGER,
                "precomputed": OneOf((STRING, STRINGS), "a path or a list of paths"),
                "base_url": STRING,
                "api_key_env": STRING,
                "max_retries": INTEGER,
                "backoff_seconds": NUMBER,
                "timeout_seconds": NUMBER,
            }
        ),
        "hybrid": Table({"weights": NUMBERS, "rrf_k": NUMBER, "sweep_weights": NUMBERS, "sweep_rrf_k": NUMBERS}),
        "ann": Table({"index": STRING, "partitions": INTEGER, "probes": INTEGER}),
    }
)

EVALUATION = Table(
    {
        "query_set": STRING,
        "sample": INTEGER,
        "tune_share": NUMBER,
        "bootstrap_resamples": INTEGER,
        "alpha": NUMBER,
        "thresholds": STRING,
        "compare": Table({"metric": STRING, "k": INTEGER}),
        "runs": ArrayOfTables(
            Table(
                {"label": STRING, "baseline": BOOLEAN, "retrieval": RETRIEVAL, "run_file": STRING, "system": STRING},
                required=("label",),
            )
        ),
    }
)

STUDY_SCHEMA = Table(
    {
        "study": Table(
            {
                "name": STRING,
                "description": STRING,
                "seed": INTEGER,
                "jobs": STRINGS,
                "analysis": STRINGS,
                "dbt_select": OneOf(
                    (STRING, Table({"sources": STRING, "results": STRING})),
                    "a dbt selector or a table {sources, results}",
                ),
            },
            required=("name", "seed"),
        ),
        "ingest": ANY,  # checked per source: INGEST_SOURCES
        "parameters": MapOf(ANY),  # checked by warehouse.run_parameters.resolve_parameters
        "dbt_vars": MapOf(ANY),
        "retrieval": RETRIEVAL,
        "evaluation": EVALUATION,
        "dialect": Table({"bootstrap_resamples": INTEGER}),
        "weat": Table(
            {
                "embeddings": STRINGS,
                "test_sets": STRINGS,
                "tests": STRINGS,
                "match_policy": STRING,
                "min_coverage": NUMBER,
                "min_words": INTEGER,
                "balance": BOOLEAN,
                "exact_limit": INTEGER,
                "n_permutations": INTEGER,
                "bootstrap_resamples": INTEGER,
                "bootstrap_method": STRING,
                "confidence_level": NUMBER,
            }
        ),
        "silent_bias": Table({"confidence": NUMBER}),
        "recsys": Table({"pool": STRING, "p_adjust": STRING, "yates": BOOLEAN, "min_group_size": INTEGER}),
        "recsys_importance": Table({"trees": INTEGER, "folds": INTEGER, "repeats": INTEGER}),
    }
)


def _ingest(keys: dict, required: tuple[str, ...] = ()) -> Table:
    return Table({"source": STRING, "path": STRING, **keys}, required=("source", "path", *required))


# source -> the keys of its [[ingest]] step (the loader's keyword options).
INGEST_SOURCES: dict[str, Table] = {
    "squad": _ingest({"split": STRING, "name": STRING}),
    "pairs": _ingest(
        {
            "name": STRING,
            "variants": STRING_MAP,
            "id_column": STRING,
            "squad_idx_column": STRING,
            "squad_split": STRING,
            "gold_doc_id_column": STRING,
            "corpus": STRING,
            "gold_query_id_column": STRING,
            "query_set": STRING,
            "cleanup": OneOf(
                (BOOLEAN, Choice(("light", "seed_compatible", "none"))),
                "true, false, 'light', 'seed_compatible' or 'none'",
            ),
            "allow_missing_variants": BOOLEAN,
        }
    ),
    "rule_variants": _ingest(
        {
            "name": STRING,
            "squad_split": STRING,
            "sample": INTEGER,
            "sample_seed": INTEGER,
            "rules": STRINGS,
            "rate": NUMBER,
            "per_rule": BOOLEAN,
        }
    ),
    "qrels": _ingest({"query_set": STRING, "name": STRING}, required=("query_set",)),
    "corpus": _ingest(
        {"name": STRING, "unit": STRING, "id_column": STRING, "text_column": STRING, "title_column": STRING}
    ),
    "corpus_queries": _ingest(
        {
            "corpus": STRING,
            "name": STRING,
            "id_column": STRING,
            "text_column": STRING,
            "format": Choice(("trec_topics",)),
            "topic_field": Choice(("title", "desc", "narr")),
        },
        required=("corpus",),
    ),
    "silent_bias_vignettes": _ingest({"name": STRING}),
    "silent_bias_generations": _ingest({"vignette_set": STRING, "model": STRING}, required=("vignette_set",)),
    "weat_tests": _ingest({"name": STRING}),
    "word_vectors": _ingest(
        {"name": STRING, "format": STRING, "table": STRING, "words_from": STRINGS, "templates": STRINGS},
        required=("name",),
    ),
    "recsys_summary": _ingest({"name": STRING}),
    "recsys_directional_bias": _ingest({"name": STRING}),
    "recsys_feature_importance": _ingest({"name": STRING}),
    "recsys_posts": _ingest(
        {
            "features_path": STRING,
            "name": STRING,
            "condition_columns": STRING_MAP,
            "fixed_conditions": STRING_MAP,
            "selected_column": STRING,
            "item_id_column": STRING,
        },
        required=("features_path",),
    ),
    "recsys_simulated": _ingest({}),
    "recsys_experiment": _ingest(
        {
            "features_path": STRING,
            "name": STRING,
            "base_url": STRING,
            "models": STRINGS,
            "prompt_styles": STRINGS,
            "prompt_styles_path": STRING,
            "n_posts": INTEGER,
            "k": INTEGER,
            "trials": INTEGER,
            "dataset": STRING,
            "temperature": NUMBER,
            "concurrency": INTEGER,
            "max_retries": INTEGER,
            "backoff_seconds": NUMBER,
            "timeout_seconds": NUMBER,
            "api_key_env": STRING,
            "text_features": BOOLEAN,
        },
        required=("features_path", "base_url", "models"),
    ),
}

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


class _Checker:
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


def check_config(path: Path, config: dict, *, check_sources: bool = True) -> None:
    """Refuse unknown tables and keys, missing required keys and wrong types in a parsed study config.

    ``check_sources``: an ``[[ingest]]`` source not in :data:`INGEST_SOURCES` is refused (else
    its keys go unchecked, for configs loaded without the plugins).
    """
    checker = _Checker(path)
    for name in config:
        if name not in STUDY_SCHEMA.keys:
            close = suggestion(name, STUDY_SCHEMA.keys, brackets=True)
            raise UserError(
                f"{path}: unknown table [{name}]{close}; known: {', '.join(f'[{t}]' for t in STUDY_SCHEMA.keys)}"
            )
    if "study" not in config:
        raise UserError(f"{path}: [study] needs a name and a seed")
    for name, value in config.items():
        if name == "ingest":
            continue
        spec = STUDY_SCHEMA.keys[name]
        if not isinstance(value, dict):
            raise UserError(f"{path}: [{name}] must be a table, got {value!r}")
        if isinstance(spec, MapOf):
            continue
        checker.table(spec, value, f"[{name}]")
    steps = config.get("ingest", [])
    if not isinstance(steps, list) or not all(isinstance(s, dict) for s in steps):
        raise UserError(f"{path}: ingest must be an array of tables ([[ingest]])")
    for number, step in enumerate(steps, start=1):
        source = step.get("source")
        where = f"[[ingest]] #{number}"
        if source not in INGEST_SOURCES:
            if check_sources:
                raise UserError(
                    f"{path}: {where} has unknown source {source!r}"
                    f"{suggestion(str(source), INGEST_SOURCES)}; known: {', '.join(INGEST_SOURCES)}"
                )
            continue
        checker.table(INGEST_SOURCES[source], step, f'{where} (source = "{source}")')
