"""The schema of a study config: every table, key and type a study TOML may hold.

:func:`config_problems` walks a parsed config against :data:`STUDY_SCHEMA` and lists every
unknown key, wrongly typed or out-of-range value (NaN and infinities too) and, when asked, every
missing input file, each with the config file and the key's path, e.g.
``studies/x.toml: [retrieval.hybrid] unknown key 'weigths' (did you mean 'weights'?)``.
Ranges are declared here (:class:`~warehouse.config_schema.Number`); what values mean together
(a retriever's name, k at most the depth) is checked by each family's registered config check
(:func:`warehouse.study.register_config_check`). Each table lists the keys its consumer reads:

- ``[study]``: :func:`warehouse.study.load_study`;
- ``[[ingest]]``: one key set per source (:data:`INGEST_SOURCES`), the keyword options of
  the source's loader (``ingest/retrieval/squad.py``, ``ingest/dialect/pairs.py``, the ``register_ingester``
  functions of ``ingest/jobs/*.py``);
- ``[parameters]`` (older spelling ``[dbt_vars]``): checked against dbt's vars by
  :mod:`warehouse.run_parameters`, so any key passes here;
- ``[retrieval]``: ``compute/retrieval/config.py``, ``compute/retrieval/embeddings.py``;
- ``[evaluation]``: ``compute/evaluation/steps.py`` and ``analysis/evaluation/steps.py``;
- ``[dialect]``, ``[weat]``, ``[silent_bias]``, ``[recsys]``: their ``analysis/steps`` module;
- ``[verdicts]``: :func:`stats.multiple_comparisons.verdict_policy`.
"""

from __future__ import annotations

from pathlib import Path

from warehouse.config_schema import (
    ANY,
    BACKOFF_SECONDS,
    BOOLEAN,
    CONCURRENCY,
    CUTOFF,
    FILE,
    NON_NEGATIVE,
    OPEN_SHARE,
    POSITIVE_INTEGER,
    RETRIES,
    SEED,
    SHARE,
    STRING,
    STRING_MAP,
    STRINGS,
    TEMPERATURE,
    TIMEOUT_SECONDS,
    ArrayOfTables,
    Checker,
    Choice,
    ListOf,
    MapOf,
    Number,
    OneOf,
    Table,
    suggestion,
)
from warehouse.errors import UserError

DEPTH = CUTOFF
# Bootstrap resamples and permutations: fewer than 100 give no usable interval or p-value.
RESAMPLES = Number(integer=True, minimum=100, maximum=10_000_000)
CONFIDENCE = OPEN_SHARE

RETRIEVAL = Table(
    {
        "retrievers": STRINGS,
        "depth": DEPTH,
        "query_sets": STRINGS,
        "timing": STRING,
        "drop_documents_fraction": Number(minimum=0, maximum=1, below=True),
        "tokenizer": Table({"pattern": STRING, "lowercase": BOOLEAN}),
        "bm25": Table({"k1": NON_NEGATIVE, "b": SHARE, "epsilon": NON_NEGATIVE}),
        # provider "local": model, batch_size; provider "openai": the rest (OpenAIProvider's options)
        "embedding": Table(
            {
                "provider": STRING,
                "model": STRING,
                "batch_size": Number(integer=True, minimum=1, maximum=100_000),
                "precomputed": OneOf((FILE, ListOf(FILE)), "a path or a list of paths"),
                "base_url": STRING,
                "api_key_env": STRING,
                "max_retries": RETRIES,
                "backoff_seconds": BACKOFF_SECONDS,
                "timeout_seconds": TIMEOUT_SECONDS,
            }
        ),
        "hybrid": Table(
            {
                "weights": ListOf(NON_NEGATIVE),
                "rrf_k": NON_NEGATIVE,
                "sweep_weights": ListOf(SHARE),
                "sweep_rrf_k": ListOf(NON_NEGATIVE),
            }
        ),
        "ann": Table({"index": STRING, "partitions": POSITIVE_INTEGER, "probes": POSITIVE_INTEGER}),
    }
)

EVALUATION = Table(
    {
        "query_set": STRING,
        "sample": POSITIVE_INTEGER,
        "tune_share": OPEN_SHARE,
        "bootstrap_resamples": RESAMPLES,
        "alpha": OPEN_SHARE,
        "thresholds": FILE,
        "compare": Table({"metric": STRING, "k": DEPTH}),
        "runs": ArrayOfTables(
            Table(
                {"label": STRING, "baseline": BOOLEAN, "retrieval": RETRIEVAL, "run_file": FILE, "system": STRING},
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
                "seed": SEED,
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
        "dialect": Table({"bootstrap_resamples": RESAMPLES}),
        "weat": Table(
            {
                "embeddings": STRINGS,
                "test_sets": STRINGS,
                "tests": STRINGS,
                "match_policy": STRING,
                "min_coverage": Number(minimum=0, maximum=1, above=True),
                "min_words": POSITIVE_INTEGER,
                "balance": BOOLEAN,
                "exact_limit": Number(integer=True, minimum=1, maximum=100_000_000),
                # the randomised test's floor (compute/weat/runner.py WeatSettings)
                "n_permutations": Number(integer=True, minimum=100_000, maximum=100_000_000),
                "bootstrap_resamples": RESAMPLES,
                "bootstrap_method": STRING,
                "confidence_level": CONFIDENCE,
                # compute/weat/metrics.py MetricSettings: RND, RNSB, MAC, ECT, RIPA, word-set sensitivity
                "metrics": Table(
                    {
                        "names": STRINGS,
                        "vectors": STRING,
                        "ripa": STRING,
                        "rnsb_splits": Number(integer=True, minimum=2, maximum=10_000),
                        "bootstrap_resamples": RESAMPLES,
                        "n_permutations": Number(integer=True, minimum=100, maximum=100_000_000),
                        "exact_limit": Number(integer=True, minimum=1, maximum=100_000_000),
                    }
                ),
            }
        ),
        "silent_bias": Table({"confidence": CONFIDENCE}),
        "recsys": Table({"pool": STRING, "p_adjust": STRING, "yates": BOOLEAN, "min_group_size": POSITIVE_INTEGER}),
        "recsys_importance": Table(
            {
                "trees": Number(integer=True, minimum=1, maximum=10_000),
                "folds": Number(integer=True, minimum=2, maximum=100),
                "repeats": Number(integer=True, minimum=1, maximum=1_000),
            }
        ),
        # the verdict policy (stats/multiple_comparisons.py): adjustment within each family, and alpha
        "verdicts": Table({"adjustment": Choice(("holm", "bh")), "alpha": Number(above=True, minimum=0, maximum=0.5)}),
    }
)


def _ingest(keys: dict, required: tuple[str, ...] = (), *, path=FILE) -> Table:
    return Table({"source": STRING, "path": path, **keys}, required=("source", "path", *required))


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
            "sample": POSITIVE_INTEGER,
            "sample_seed": SEED,
            "rules": STRINGS,
            "rate": SHARE,
            "per_rule": BOOLEAN,
        },
        path=STRING,  # the folder (under the warehouse) the generated variants are written to
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
            "features_path": FILE,
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
            "features_path": FILE,
            "name": STRING,
            "base_url": STRING,
            "models": STRINGS,
            "prompt_styles": STRINGS,
            "prompt_styles_path": FILE,
            "n_posts": Number(integer=True, minimum=1, maximum=100_000),
            "k": POSITIVE_INTEGER,
            "trials": Number(integer=True, minimum=1, maximum=100_000),
            "dataset": STRING,
            "temperature": TEMPERATURE,
            "concurrency": CONCURRENCY,
            "max_retries": RETRIES,
            "backoff_seconds": BACKOFF_SECONDS,
            "timeout_seconds": TIMEOUT_SECONDS,
            "api_key_env": STRING,
            "text_features": BOOLEAN,
        },
        required=("features_path", "base_url", "models"),
    ),
}


def config_problems(
    path: Path, config: dict, *, check_sources: bool = True, check_files: bool = False
) -> tuple[list[str], dict]:
    """Every unknown table or key, missing required key, wrong type or out-of-range value of a parsed
    study config (one line each), and the config without the values that failed.

    ``check_sources``: an ``[[ingest]]`` source not in :data:`INGEST_SOURCES` is refused (else
    its keys go unchecked, for configs loaded without the plugins). ``check_files``: every
    input path must exist (relative to the config's folder).
    """
    checker = Checker(path, check_files=check_files)
    cleaned: dict = {}
    for name, value in config.items():
        if name not in STUDY_SCHEMA.keys:
            close = suggestion(name, STUDY_SCHEMA.keys, brackets=True)
            known = ", ".join(f"[{t}]" for t in STUDY_SCHEMA.keys)
            checker.problems.append(f"{path}: unknown table [{name}]{close}; known: {known}")
        elif name == "ingest":
            cleaned[name] = _ingest_steps(checker, value, check_sources=check_sources)
        elif not isinstance(value, dict):
            checker.problems.append(f"{path}: [{name}] must be a table, got {value!r}")
        elif isinstance(STUDY_SCHEMA.keys[name], MapOf):
            cleaned[name] = value
        else:
            cleaned[name] = checker.table(STUDY_SCHEMA.keys[name], value, f"[{name}]")
    if "study" not in config:
        checker.problems.append(f"{path}: [study] needs a name and a seed")
    return checker.problems, cleaned


def _ingest_steps(checker: Checker, steps, *, check_sources: bool) -> list[dict]:
    if not isinstance(steps, list) or not all(isinstance(s, dict) for s in steps):
        checker.problems.append(f"{checker.path}: ingest must be an array of tables ([[ingest]])")
        return []
    cleaned = []
    for number, step in enumerate(steps, start=1):
        source = step.get("source")
        where = f"[[ingest]] #{number}"
        if source in INGEST_SOURCES:
            cleaned.append(checker.table(INGEST_SOURCES[source], step, f'{where} (source = "{source}")'))
        elif check_sources:
            checker.problems.append(
                f"{checker.path}: {where} has unknown source {source!r}"
                f"{suggestion(str(source), INGEST_SOURCES)}; known: {', '.join(INGEST_SOURCES)}"
            )
        else:
            cleaned.append(step)
    return cleaned


def check_config(path: Path, config: dict, *, check_sources: bool = True) -> None:
    """Refuse a parsed study config with every problem :func:`config_problems` finds, one per line."""
    problems, _ = config_problems(path, config, check_sources=check_sources)
    if problems:
        raise UserError("\n".join(problems))
