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
"""

from __future__ import annotations

from biaswh.ingest.common.versions import IngestResult
from biaswh.ingest.silent_bias.load_generations import generation_files, load_generations, read_generation_lines
from biaswh.ingest.silent_bias.vignettes import load_vignettes
from biaswh.warehouse.errors import UserError
from biaswh.warehouse.runs.study import register_ingester
from biaswh.warehouse.settings.config_schema import STRING
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
