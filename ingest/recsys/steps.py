"""Study config sources for recommendation bias: ``recsys_posts``, ``recsys_summary``, ``recsys_simulated``,
``recsys_directional_bias`` and ``recsys_feature_importance`` (the paper's published files).

``recsys_simulated`` takes a small simulation spec (TOML: the keyword options of
:func:`biaswh.ingest.recsys.simulate.simulate_posts` plus ``name``), writes the synthetic files
under ``$BIASWH_HOME/generated/recsys/`` with a seed derived from the study's seed, and
loads them like any post-level file, so their sha256 is recorded and a re-run is a no-op.
"""

from __future__ import annotations

import dataclasses
import tomllib
from pathlib import Path

from biaswh.ingest.common.llm.settings import public_url
from biaswh.ingest.recsys.paper_results import load_recsys_directional_bias, load_recsys_feature_importance
from biaswh.ingest.recsys.posts import _read_feature_types, load_recsys_posts
from biaswh.ingest.recsys.run_experiment import ExperimentSettings, run_experiment
from biaswh.ingest.recsys.simulate import write_simulated_files
from biaswh.ingest.recsys.summary import load_recsys_summary
from biaswh.ingest.recsys.text_features import TEXT_FEATURE_TYPES
from biaswh.warehouse.database.output_files import OutputRefused, name_in_folder, write_text_atomically
from biaswh.warehouse.errors import UserError
from biaswh.warehouse.runs.study import register_config_check, register_ingester
from biaswh.warehouse.settings.config_schema import (
    BACKOFF_SECONDS,
    BOOLEAN,
    CONCURRENCY,
    FILE,
    POSITIVE_INTEGER,
    RETRIES,
    STRING,
    STRING_MAP,
    STRINGS,
    TEMPERATURE,
    TIMEOUT_SECONDS,
    Number,
)
from biaswh.warehouse.settings.home import warehouse_paths
from biaswh.warehouse.settings.random_seeds import derive_seed
from biaswh.warehouse.settings.study_schema import ingest_step


def _options(step: dict, *, drop: tuple[str, ...] = ("source", "path")) -> dict:
    return {k: v for k, v in step.items() if k not in drop}


@register_ingester("recsys_summary", options=ingest_step({"name": STRING}))
def ingest_summary_step(con, study, step: dict):
    """``[[ingest]] source = "recsys_summary"``: condition-level results in the original tool's format."""
    return load_recsys_summary(con, study.resolve(step["path"]), **_options(step))


@register_ingester("recsys_directional_bias", options=ingest_step({"name": STRING}))
def ingest_directional_bias_step(con, study, step: dict):
    """``[[ingest]] source = "recsys_directional_bias"``: the published directional-bias table."""
    return load_recsys_directional_bias(con, study.resolve(step["path"]), **_options(step))


@register_ingester("recsys_feature_importance", options=ingest_step({"name": STRING}))
def ingest_feature_importance_step(con, study, step: dict):
    """``[[ingest]] source = "recsys_feature_importance"``: the published feature importances."""
    return load_recsys_feature_importance(con, study.resolve(step["path"]), **_options(step))


@register_ingester(
    "recsys_posts",
    options=ingest_step(
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
)
def ingest_posts_step(con, study, step: dict):
    """``[[ingest]] source = "recsys_posts"``: post-level data and its feature table."""
    if "features_path" not in step:
        raise UserError(f"{study.path}: a recsys_posts [[ingest]] step needs features_path (the feature table)")
    options = _options(step, drop=("source", "path", "features_path"))
    return load_recsys_posts(
        con, study.resolve(step["path"]), features_path=study.resolve(step["features_path"]), **options
    )


@register_ingester("recsys_simulated", options=ingest_step({}))
def ingest_simulated_step(con, study, step: dict):
    """``[[ingest]] source = "recsys_simulated"``: seeded synthetic post-level data, written then loaded."""
    spec_path = Path(study.resolve(step["path"]))
    try:
        spec = tomllib.loads(spec_path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise UserError(f"{spec_path}: cannot read the simulation spec ({exc})") from None
    name = spec.pop("name", "synthetic")
    spec = {k: tuple(v) if isinstance(v, list) else v for k, v in spec.items()}
    folder = warehouse_paths().home / "generated" / "recsys"
    seed = derive_seed(study.seed, "recsys", "simulation", name)
    try:
        posts_path, features_path = write_simulated_files(folder, name=name, seed=seed, **spec)
    except (TypeError, ValueError) as exc:
        raise UserError(f"{spec_path}: invalid simulation spec ({exc})") from None
    provenance = {
        "synthetic": True,
        "simulation_spec": str(spec_path),
        "simulation_seed": seed,
        "simulation_options": {k: list(v) if isinstance(v, tuple) else v for k, v in spec.items()},
    }
    return load_recsys_posts(con, posts_path, features_path=features_path, name=name, provenance=provenance)


@register_config_check("recsys_experiment")
def check_experiment_steps(study) -> None:
    """Before any work: each experiment recommends at most as many posts as it shows (k <= n_posts), and
    its ``name`` (which names its generated files) stays in the generated files' folder."""
    # The settings' own defaults, read without building settings (that would check base_url first).
    defaults = {f.name: f.default for f in dataclasses.fields(ExperimentSettings)}
    problems = [
        f'[[ingest]] #{number} (source = "recsys_experiment"): k = {step.get("k", defaults["k"])} is more than'
        f" n_posts = {step.get('n_posts', defaults['n_posts'])} (posts shown per trial)"
        for number, step in enumerate(study.ingest, start=1)
        if step.get("source") == "recsys_experiment"
        and step.get("k", defaults["k"]) > step.get("n_posts", defaults["n_posts"])
    ]
    for number, step in enumerate(study.ingest, start=1):
        if step.get("source") == "recsys_experiment":
            try:
                name_in_folder(_generated_folder(), str(step.get("name", "experiment")), what="name")
            except OutputRefused as refused:
                problems.append(f'[[ingest]] #{number} (source = "recsys_experiment"): {refused}')
    if problems:
        raise UserError("\n".join(problems))


def _generated_folder() -> Path:
    """Where experiments write their trials, posts and features files (inside the warehouse folder)."""
    return warehouse_paths().home / "generated" / "recsys"


@register_ingester(
    "recsys_experiment",
    options=ingest_step(
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
)
def ingest_experiment_step(con, study, step: dict):
    """Run (or resume) the LLM recommendation experiment on a pool, then load its post-level file."""
    options = _options(step, drop=("source", "path", "features_path", "name", "text_features"))
    for name in ("models", "prompt_styles"):
        if name in options:
            options[name] = tuple(options[name])
    if "prompt_styles_path" in options:
        options["prompt_styles_path"] = str(study.resolve(options["prompt_styles_path"]))
    settings = ExperimentSettings(seed=derive_seed(study.seed, "recsys", "experiment"), **options)
    features_path = Path(study.resolve(step["features_path"]))
    types = {row["feature"]: row["feature_type"] for row in _read_feature_types(features_path)}
    name = step.get("name", "experiment")
    folder = _generated_folder()
    name_in_folder(folder, name, what="name")  # checked before any work too (check_experiment_steps)
    folder.mkdir(parents=True, exist_ok=True)
    text_features = bool(step.get("text_features", False))
    if text_features:  # the user's columns first; computed text features only where the pool has none
        types = {**TEXT_FEATURE_TYPES, **types}
        features_path = name_in_folder(folder, f"{name}_features.csv", what="name")
        write_text_atomically(features_path, "feature,type\n" + "".join(f"{f},{t}\n" for f, t in types.items()))
    summary = run_experiment(
        study.resolve(step["path"]), list(types), folder, settings, name=name, text_features=text_features
    )
    print(f"[{study.name}] recsys_experiment: {summary.message}", flush=True)
    # JSON-shaped (lists, not tuples), so an identical rerun compares equal to the stored version.
    public = {k: list(v) if isinstance(v, tuple) else v for k, v in options.items() if k != "base_url"}
    public["base_url"] = public_url(settings.base_url)  # without user info or query, where a key could hide
    provenance = {"experiment": {**public, "trials_file": str(summary.trials_path), "n_usable": summary.n_usable}}
    return load_recsys_posts(con, summary.posts_path, features_path=features_path, name=name, provenance=provenance)
