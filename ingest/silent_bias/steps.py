"""Study config sources for silent bias: ``silent_bias_vignettes`` and ``silent_bias_generations``.

.. code-block:: toml

    [[ingest]]
    source = "silent_bias_vignettes"
    path = "data/vignettes.json"
    name = "my_vignettes"            # optional; default: the file name without suffix

    [[ingest]]
    source = "silent_bias_generations"
    path = "data/generations"        # a folder (every *.jsonl, model id = file name) or one file
    vignette_set = "my_vignettes"
    model = "qwq"                    # optional, only for a single file

    [[ingest]]                       # or: the answers asked of an OpenAI-compatible endpoint
    source = "silent_bias_generate"
    path = "data/vignettes.json"     # the vignettes to answer (loaded by a silent_bias_vignettes step)
    vignette_set = "my_vignettes"
    base_url = "http://localhost:8000/v1"
    model = "my-model"
    api_key_env = "OPENAI_API_KEY"   # the key is read from this variable only
    name = "my-model-v2"             # optional: the model id its answers are stored under (default: model)
"""

from __future__ import annotations

from pathlib import Path

from biaswh.ingest.common.llm.settings import public_url
from biaswh.ingest.common.versions import IngestResult
from biaswh.ingest.silent_bias.load_generations import generation_files, load_generations, read_generation_lines
from biaswh.ingest.silent_bias.vignettes import load_vignettes
from biaswh.warehouse.database.output_files import name_in_folder
from biaswh.warehouse.errors import UserError
from biaswh.warehouse.runs.study import register_ingester
from biaswh.warehouse.settings.config_schema import (
    CONCURRENCY,
    POSITIVE_INTEGER,
    RETRIES,
    STRING,
    TEMPERATURE,
    TIMEOUT_SECONDS,
)
from biaswh.warehouse.settings.home import warehouse_paths
from biaswh.warehouse.settings.random_seeds import derive_seed
from biaswh.warehouse.settings.study_schema import ingest_step


@register_ingester("silent_bias_vignettes", options=ingest_step({"name": STRING}))
def ingest_vignettes(con, study, step: dict) -> IngestResult:
    """``[[ingest]] source = "silent_bias_vignettes"``: a vignette file."""
    return load_vignettes(con, study.resolve(step["path"]), name=step.get("name"))


@register_ingester(
    "silent_bias_generations",
    options=ingest_step({"vignette_set": STRING, "model": STRING}, required=("vignette_set",)),
)
def ingest_generations(con, study, step: dict) -> IngestResult:
    """``[[ingest]] source = "silent_bias_generations"``: the generation files of ``path``."""
    if not step.get("vignette_set"):
        raise UserError(f'{study.path}: a silent_bias_generations [[ingest]] needs vignette_set = "..."')
    files = generation_files(study.resolve(step["path"]))
    if step.get("model") and len(files) > 1:
        raise UserError(f"{study.path}: `model` names one model, but {step['path']} holds {len(files)} files")
    for path in files:  # check every file before loading any, so a bad file leaves the warehouse unchanged
        read_generation_lines(path)
    results = [
        load_generations(con, path, vignette_set=step["vignette_set"], model=step.get("model")) for path in files
    ]
    return IngestResult(
        dataset=results[0].dataset,
        source_name=step["vignette_set"],
        status="loaded" if any(r.status == "loaded" for r in results) else "unchanged",
        version=max(r.version for r in results),
        rows=sum(r.rows for r in results),
        run_id=results[-1].run_id,
        message="\n".join(r.message for r in results),
    )


def _answers_folder() -> Path:
    """Where generated answers are kept (and resumed from): inside the warehouse folder."""
    return warehouse_paths().home / "generated" / "silent_bias"


@register_ingester(
    "silent_bias_generate",
    options=ingest_step(
        {
            "vignette_set": STRING,
            "base_url": STRING,
            "model": STRING,
            "api_key_env": STRING,
            "name": STRING,
            "temperature": TEMPERATURE,
            "max_tokens": POSITIVE_INTEGER,
            "concurrency": CONCURRENCY,
            "max_retries": RETRIES,
            "timeout_seconds": TIMEOUT_SECONDS,
        },
        required=("vignette_set", "base_url", "model"),
    ),
)
def ingest_generated_answers(con, study, step: dict) -> IngestResult:
    """``[[ingest]] source = "silent_bias_generate"``: ask the endpoint to answer every vignette of
    ``path`` not yet answered (the answers file under ``$BIASWH_HOME/generated/silent_bias/`` is
    also the cache, as for ``biaswh generate``), then load the answers as that model's generations.
    The seed sent derives from the study's; the key is read from ``api_key_env`` only."""
    from biaswh.ingest.silent_bias.generate_answers import generate
    from biaswh.ingest.silent_bias.generation_settings import GenerationSettings

    options = {k: v for k, v in step.items() if k not in ("source", "path", "vignette_set", "name")}
    settings = GenerationSettings(seed=derive_seed(study.seed, "silent_bias", "generate"), **options)
    folder = _answers_folder()
    answers = name_in_folder(folder, f"{step.get('name', step['model'])}.jsonl", what="name")
    folder.mkdir(parents=True, exist_ok=True)
    summary = generate(study.resolve(step["path"]), answers, settings)
    print(f"[{study.name}] silent_bias_generate ({public_url(settings.base_url)}): {summary.message}", flush=True)
    return load_generations(con, answers, vignette_set=step["vignette_set"], model=step.get("name", step["model"]))
