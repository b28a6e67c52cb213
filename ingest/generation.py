"""Generate chain-of-thought answers for vignettes from an OpenAI-compatible chat endpoint.

Works with OpenAI, vLLM, Ollama or LM Studio (``base_url``). Requests run concurrently up
to a limit, each with a timeout and retries with exponential backoff on timeouts, connection
errors, 429 and 5xx. The output JSONL is also the cache: every finished answer is appended at
once, and a rerun sends only the vignettes without an ``ok`` line. Each line records the exact
prompt sent, the prompt template and the sampling parameters. The API key is read from an
environment variable, used only in the request header, and never written or printed.
"""

from __future__ import annotations

import json
import os
import re
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass, field, replace
from datetime import datetime, timezone
from pathlib import Path
from urllib.parse import urlsplit, urlunsplit

import openai

from ingest.generation_settings import DEFAULT_PROMPT_TEMPLATE, GenerationSettings  # noqa: F401  (re-exported)
from ingest.vignettes import read_vignettes
from warehouse.errors import UserError

_RETRYABLE = (openai.APITimeoutError, openai.APIConnectionError, openai.RateLimitError, openai.InternalServerError)
# Wrong key, model or URL: every request would fail the same way, so stop at once.
_FATAL = (openai.AuthenticationError, openai.PermissionDeniedError, openai.NotFoundError)
_KEY_LIKE = re.compile(r"sk-[A-Za-z0-9_\-*]{4,}")


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


def _public_url(url: str) -> str:
    """The base URL without user info or query (where a key could hide)."""
    parts = urlsplit(url)
    host = parts.hostname or ""
    netloc = f"{host}:{parts.port}" if parts.port else host
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


def _redact(text: str, key: str | None) -> str:
    if key:
        text = text.replace(key, "***")
    return _KEY_LIKE.sub("sk-***", text)


def read_cache(path: Path) -> dict[str, dict]:
    """The latest parseable line per vignette id; a half-written last line (a crash) is ignored."""
    latest: dict[str, dict] = {}
    if not path.exists():
        return latest
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            record = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(record, dict) and isinstance(record.get("id"), str):
            latest[record["id"]] = record
    return latest


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


def _compact(path: Path, order: list[str]) -> None:
    """Rewrite the cache with one line per id (the latest), in vignette order, atomically."""
    latest = read_cache(path)
    ids = [i for i in order if i in latest] + sorted(set(latest) - set(order))
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_text("".join(json.dumps(latest[i], ensure_ascii=False) + "\n" for i in ids), encoding="utf-8")
    os.replace(temporary, path)


def _output_text(response) -> str:
    message = response.choices[0].message
    content = message.content or ""
    # vLLM / LM Studio reasoning models return the chain of thought separately
    reasoning = getattr(message, "reasoning_content", None) or (message.model_extra or {}).get("reasoning_content")
    return f"<think>\n{reasoning}\n</think>\n{content}" if reasoning else content


def _ask(client, vignette: dict, settings: GenerationSettings, key: str | None, run_id: str) -> dict:
    """One vignette: the request with retries; returns the JSONL record (status ok or error)."""
    prompt = settings.prompt_template.format(prompt=vignette["prompt"])
    record = {
        "id": vignette["case_id"],
        "bias_feature": vignette["bias_feature"],
        "bias_label": vignette["bias_label"],
        "prompt": prompt,
        "output_text": "",
        "status": "error",
        "error_message": "",
        "run_id": run_id,
        "model_name": settings.model,
        "metadata": json.loads(vignette["metadata"]),
        "sampling": settings.sampling(),
        "prompt_template": settings.prompt_template,
    }
    started = time.monotonic()
    attempts = 0
    for attempt in range(settings.max_retries + 1):
        attempts = attempt + 1
        try:
            response = client.chat.completions.create(
                model=settings.model, messages=[{"role": "user", "content": prompt}], **settings.sampling()
            )
            record.update(output_text=_output_text(response), status="ok", error_message="")
            break
        except _FATAL:
            raise
        except _RETRYABLE as exc:
            record["error_message"] = _redact(f"{type(exc).__name__}: {exc}", key)
            if attempt < settings.max_retries:
                time.sleep(settings.backoff_seconds * 2**attempt)
        except openai.APIError as exc:  # other 4xx: the request itself is wrong, retrying cannot help
            record["error_message"] = _redact(f"{type(exc).__name__}: {exc}", key)
            break
    record["timestamp"] = datetime.now(timezone.utc).isoformat()
    record["meta"] = {
        "latency_ms": round((time.monotonic() - started) * 1000),
        "attempts": attempts,
        "base_url": _public_url(settings.base_url),
    }
    return record


def generate(
    vignette_path: str | Path, out_path: str | Path, settings: GenerationSettings, *, limit: int | None = None
) -> GenerationSummary:
    """Answer every vignette not yet answered ``ok`` in ``out_path``; append as answers arrive.

    Parameters
    ----------
    vignette_path : the vignette file (as for ``load_vignettes``).
    out_path : the generations JSONL, also the cache; created when missing.
    settings : endpoint, model, template, sampling, concurrency, retries, timeout.
    limit : only the first N vignettes (a dry run).

    Raises
    ------
    UserError
        On a wrong key, model or URL (the first such answer stops the run), or a cache made with other settings.
    """
    if "{prompt}" not in settings.prompt_template:
        raise UserError("the prompt template must contain {prompt}")
    vignettes = read_vignettes(vignette_path)[:limit]
    out = Path(out_path).expanduser().resolve()
    out.parent.mkdir(parents=True, exist_ok=True)
    cached = read_cache(out)
    _check_cache_matches(out, cached, settings)
    todo = [v for v in vignettes if cached.get(v["case_id"], {}).get("status") != "ok"]
    key = os.environ.get(settings.api_key_env) or None
    client = openai.OpenAI(
        base_url=settings.base_url, api_key=key or "not-needed", timeout=settings.timeout_seconds, max_retries=0
    )
    run_id = uuid.uuid4().hex
    lock = threading.Lock()
    results: list[dict] = []
    order = [v["case_id"] for v in vignettes]
    try:
        with ThreadPoolExecutor(max_workers=max(1, settings.concurrency)) as pool:
            futures = [pool.submit(_ask, client, v, settings, key, run_id) for v in todo]
            try:
                for future in as_completed(futures):
                    record = future.result()
                    with lock, out.open("a", encoding="utf-8") as handle:
                        handle.write(json.dumps(record, ensure_ascii=False) + "\n")
                    results.append(record)
            except _FATAL as exc:
                for pending in futures:
                    pending.cancel()
                raise UserError(
                    f"the endpoint refused the request ({type(exc).__name__}): check --base-url,"
                    f" --model and ${settings.api_key_env}: {_redact(str(exc), key)}"
                ) from None
    finally:
        client.close()
        if out.exists():
            _compact(out, order)
    n_ok = sum(r["status"] == "ok" for r in results)
    retries = sum(r["meta"]["attempts"] - 1 for r in results)
    summary = GenerationSummary(
        out, len(vignettes), len(vignettes) - len(todo), len(todo), n_ok, len(todo) - n_ok, retries
    )
    message = (
        f"{out}: {summary.n_cached} cached, {summary.n_sent} sent, {summary.n_ok} ok,"
        f" {summary.n_failed} failed after retries ({summary.n_retries} retries)"
    )
    return replace(summary, message=message)
