"""The schema of a study config: every table, key and type a study TOML may hold.

:func:`config_problems` walks a parsed config against :data:`STUDY_SCHEMA` and lists every
unknown key, wrongly typed or out-of-range value (NaN and infinities too) and, when asked, every
missing input file, each with the config file and the key's path, e.g.
``studies/x.toml: [retrieval.hybrid] unknown key 'weigths' (did you mean 'weights'?)``.
Ranges are declared here (:class:`~biaswh.warehouse.settings.config_schema.Number`); what values mean together
(a retriever's name, k at most the depth) is checked by each family's registered config check
(:func:`biaswh.warehouse.runs.study.register_config_check`). Each table lists the keys its consumer reads:

- ``[study]``: :func:`biaswh.warehouse.runs.study.load_study`;
- ``[[ingest]]``: one key set per source (:data:`INGEST_SOURCES`), the keyword options of
  the source's loader, registered with it (``register_ingester(source, options=...)`` in
  ``ingest/<family>/steps.py``);
- ``[parameters]`` (older spelling ``[dbt_vars]``): checked against dbt's vars by
  :mod:`biaswh.warehouse.runs.parameters`, so any key passes here;
- ``[compute]``: :mod:`biaswh.compute.common.engine`;
- ``[verdicts]``: :func:`biaswh.stats.multiple_comparisons.verdict_policy`;
- a family's table (``[retrieval]``, ``[evaluation]``, ``[dialect]``, ``[weat]``,
  ``[silent_bias]``, ``[recsys]``, ...): declared beside its consumer and registered with
  :func:`register_config_section` from the family's steps module, so the plugins must be
  loaded (``biaswh.plugins.load_plugins``) before a config that uses one is checked.
"""

from __future__ import annotations

from pathlib import Path

from biaswh.warehouse.errors import UserError
from biaswh.warehouse.runs.data_kind import DATA_KINDS
from biaswh.warehouse.settings.config_schema import (
    ANY,
    CUTOFF,
    FILE,
    OPEN_SHARE,
    SEED,
    STRING,
    STRINGS,
    Checker,
    Choice,
    MapOf,
    Number,
    OneOf,
    Table,
    suggestion,
)

DEPTH = CUTOFF
# Bootstrap resamples and permutations: fewer than 100 give no usable interval or p-value.
RESAMPLES = Number(integer=True, minimum=100, maximum=10_000_000)
CONFIDENCE = OPEN_SHARE

# The kernel's own tables; each study family adds its ``[<family>]`` table with
# :func:`register_config_section` and its ``[[ingest]]`` sources' keys with
# ``biaswh.warehouse.runs.study.register_ingester(source, options=...)``, where the family lives.
STUDY_SCHEMA = Table(
    {
        "study": Table(
            {
                "name": STRING,
                "description": STRING,
                # what the data is (warehouse/runs/data_kind.py): pages badge demo and synthetic runs
                "data": Choice(DATA_KINDS),
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
        "parameters": MapOf(ANY),  # checked by biaswh.warehouse.runs.parameters.resolve_parameters
        "dbt_vars": MapOf(ANY),
        # the verdict policy (stats/multiple_comparisons.py): adjustment within each family, and alpha
        "verdicts": Table({"adjustment": Choice(("holm", "bh")), "alpha": Number(above=True, minimum=0, maximum=0.5)}),
        # compute/common/engine.py: where the compute jobs run (local, or a Ray cluster)
        "compute": Table(
            {
                "engine": Choice(("local", "ray")),
                "address": STRING,
                "workers": Number(integer=True, minimum=1, maximum=10_000),
                # retrieval over this many corpus shards, merged exactly (compute/retrieval/shards.py)
                "corpus_shards": Number(integer=True, minimum=1, maximum=10_000),
                # where dbt builds: local, or a Spark target of dbt_project/profiles.yml (warehouse/spark/targets.py)
                "build_target": STRING,
            }
        ),
    }
)

# source -> the keys of its [[ingest]] step (the loader's keyword options), as registered.
INGEST_SOURCES: dict[str, Table] = {}


def register_config_section(name: str, table: Table) -> None:
    """Declare a study family's config table ``[name]`` and the keys its consumer reads.

    Parameters
    ----------
    name : the table's name in a study TOML (e.g. ``"weat"``).
    table : its keys, types and ranges (:mod:`biaswh.warehouse.settings.config_schema`).
    """
    if name in STUDY_SCHEMA.keys and STUDY_SCHEMA.keys[name] != table:
        raise ValueError(f"config table [{name}] is declared twice")
    STUDY_SCHEMA.keys[name] = table


def ingest_step(keys: dict, required: tuple[str, ...] = (), *, path=FILE) -> Table:
    """The keys of an ``[[ingest]]`` step: ``source``, ``path`` and the loader's options ``keys``.

    Parameters
    ----------
    keys : the loader's keyword options and their types.
    required : options the step must give (besides ``source`` and ``path``).
    path : the rule for ``path`` (default: an existing input file).
    """
    return Table({"source": STRING, "path": path, **keys}, required=("source", "path", *required))


def config_problems(
    path: Path, config: dict, *, check_sources: bool = True, check_files: bool = False
) -> tuple[list[str], dict]:
    """Every unknown table or key, missing required key, wrong type or out-of-range value of a parsed
    study config (one line each), and the config without the values that failed.

    ``check_sources``: an ``[[ingest]]`` source not in :data:`INGEST_SOURCES` is refused (else
    its keys go unchecked, for configs loaded without the plugins); likewise a table no
    family registered. ``check_files``: every
    input path must exist (relative to the config's folder).
    """
    checker = Checker(path, check_files=check_files)
    cleaned: dict = {}
    for name, value in config.items():
        if name not in STUDY_SCHEMA.keys and not check_sources:
            cleaned[name] = value
        elif name not in STUDY_SCHEMA.keys:
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
    _one_alpha(checker, cleaned)
    return checker.problems, cleaned


def _one_alpha(checker: Checker, cleaned: dict) -> None:
    """A study has one verdict policy: a family table's own ``alpha`` (an older key, read when
    ``[verdicts]`` sets none) may only repeat ``[verdicts] alpha``, never contradict it."""
    policy = (cleaned.get("verdicts") or {}).get("alpha")
    if policy is None:
        return
    for name, table in cleaned.items():
        if name != "verdicts" and isinstance(table, dict) and "alpha" in table and table["alpha"] != policy:
            checker.problems.append(
                f"{checker.path}: [{name}] alpha = {table['alpha']} differs from [verdicts] alpha = {policy}:"
                f" a study has one verdict policy; set alpha in [verdicts] only"
            )


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
