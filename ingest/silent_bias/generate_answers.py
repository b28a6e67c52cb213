"""Generate chain-of-thought answers for vignettes from an OpenAI-compatible chat endpoint.

Works with OpenAI, vLLM, Ollama or LM Studio (``base_url``). The requests go through the one
client (ingest/common/llm/): a bounded pool, a whole-request deadline, retries with exponential
backoff on timeouts, connection errors, 429 and 5xx, and every reply checked (JSON, shape,
non-empty content, size) before it counts as an answer. The output JSONL is also the cache:
every finished request is appended at once, and a rerun sends only the vignettes without an
``ok`` line. Each line records the exact prompt sent, the prompt template, the sampling
parameters, the model the server says answered (``server_model``) and, for a ``failed``
line, the reason. The API key is read from an environment variable, used only in the
request header, and never written or printed.
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass, field
from pathlib import Path

from biaswh.ingest.common.llm.batch import ChatJob, JsonlCache, answer_all
from biaswh.ingest.common.llm.client import Answer
from biaswh.ingest.silent_bias.generation_settings import DEFAULT_PROMPT_TEMPLATE, GenerationSettings  # noqa: F401  (re-exported)
from biaswh.ingest.silent_bias.vignettes import read_vignettes
from biaswh.warehouse.errors import UserError


@dataclass(frozen=True)
class GenerationSummary:
    """What a ``generate`` call did."""

    out_path: Path
    n_vignettes: int
    n_cached: int
    n_sent: int
    n_ok: int
    n_failed: int
    n_retries: int
    message: str = field(default="")


def read_cache(path: Path) -> dict[str, dict]:
    """The latest line per vignette id (a line cut short by a crash is reported and ignored)."""
    return JsonlCache(path).read()


def _check_cache_matches(path: Path, cached: dict[str, dict], settings: GenerationSettings) -> None:
    for record in cached.values():
        if record.get("status") != "ok":
            continue
        same = (
            record.get("model_name") == settings.model
            and record.get("sampling") == settings.sampling()
            and record.get("prompt_template") == settings.prompt_template
        )
        if not same:
            raise UserError(
                f"{path} holds answers made with another model, template or sampling parameters"
                f" (e.g. id {record['id']!r}); write to a new --out file instead of mixing them"
            )


def _job(vignette: dict, settings: GenerationSettings, run_id: str) -> ChatJob:
    prompt = settings.prompt_template.format(prompt=vignette["prompt"])

    def to_record(answer: Answer) -> dict:
        return {
            "id": vignette["case_id"],
            "bias_feature": vignette["bias_feature"],
            "bias_label": vignette["bias_label"],
            "prompt": prompt,
            "output_text": answer.text_with_reasoning() if answer.ok else "",
            "status": "ok" if answer.ok else "failed",
            "run_id": run_id,
            "model_name": settings.model,
            "metadata": json.loads(vignette["metadata"]),
            "sampling": settings.sampling(),
            "prompt_template": settings.prompt_template,
            **answer.record_fields(),
        }

    return ChatJob(settings.model, prompt, settings.sampling(), to_record)


def generate(
    vignette_path: str | Path, out_path: str | Path, settings: GenerationSettings, *, limit: int | None = None
) -> GenerationSummary:
    """Answer every vignette not yet answered ``ok`` in ``out_path``; append as answers arrive.

    Parameters
    ----------
    vignette_path : the vignette file (as for ``load_vignettes``).
    out_path : the generations JSONL, also the cache; created when missing.
    settings : endpoint, model, template, sampling, concurrency, retries, deadline, size cap.
    limit : only the first N vignettes (a dry run).

    Raises
    ------
    UserError
        On a wrong key, model or URL (the first such answer stops the run), a cache made with
        other settings or holding a corrupt line.
    EndpointFailed
        When every request sent failed (each is recorded ``failed`` with its reason first).
    """
    if "{prompt}" not in settings.prompt_template:
        raise UserError("the prompt template must contain {prompt}")
    vignettes = read_vignettes(vignette_path)[:limit]
    cache = JsonlCache(out_path)
    cache.path.parent.mkdir(parents=True, exist_ok=True)
    cached = cache.read()
    _check_cache_matches(cache.path, cached, settings)
    todo = [v for v in vignettes if cached.get(v["case_id"], {}).get("status") != "ok"]
    run_id = uuid.uuid4().hex
    hint = f"check --base-url, --model and ${settings.api_key_env}"
    result = answer_all(
        settings,
        cache,
        [_job(v, settings, run_id) for v in todo],
        refused_hint=hint,
        order=[v["case_id"] for v in vignettes],
    )
    n_ok = result.n_sent - result.n_failed
    message = (
        f"{cache.path}: {len(vignettes) - len(todo)} cached, {result.n_sent} sent, {n_ok} ok,"
        f" {result.n_failed} failed after retries ({result.n_retries} retries)"
    )
    return GenerationSummary(
        cache.path,
        len(vignettes),
        len(vignettes) - len(todo),
        result.n_sent,
        n_ok,
        result.n_failed,
        result.n_retries,
        message,
    )
