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
- ``[compute]``: :mod:`compute.engine`;
- ``[dialect]``, ``[weat]``, ``[silent_bias]``, ``[recsys]``: their ``analysis/steps`` module.
"""

from __future__ import annotations

from pathlib import Path

from warehouse.config_schema import (
    ANY,
    BOOLEAN,
    INTEGER,
    NUMBER,
    NUMBERS,
    STRING,
    STRING_MAP,
    STRINGS,
    ArrayOfTables,
    Checker,
    Choice,
    MapOf,
    OneOf,
    Table,
    suggestion,
)
from warehouse.errors import UserError

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
        # compute/engine.py: where the compute jobs run (local, or a Ray cluster)
        "compute": Table({"engine": Choice(("local", "ray")), "address": STRING, "workers": INTEGER}),
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


def check_config(path: Path, config: dict, *, check_sources: bool = True) -> None:
    """Refuse unknown tables and keys, missing required keys and wrong types in a parsed study config.

    ``check_sources``: an ``[[ingest]]`` source not in :data:`INGEST_SOURCES` is refused (else
    its keys go unchecked, for configs loaded without the plugins).
    """
    checker = Checker(path)
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
