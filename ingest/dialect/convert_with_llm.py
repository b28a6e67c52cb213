"""LLM conversion of SAE questions into AAE, following the original study's protocol.

The protocol (its generation notebook): questions sampled by :mod:`biaswh.ingest.dialect.question_sample`;
one chat request per question with a prompt template (recorded); the reply stripped and
**accepted only if longer than 5 characters and ending with "?"**; the original sent
``max_completion_tokens = 150`` and left temperature and top-p at the endpoint's defaults
(our defaults too; set them to send them). Any OpenAI-compatible endpoint (``base_url``).

Requests go through the one client (ingest/common/llm/): a bounded pool, a whole-request deadline,
retries with exponential backoff on timeouts, connection errors, 429 and 5xx, and every reply
checked (JSON, shape, non-empty content, at most ``max_reply_bytes``) before the acceptance
rule sees it; a wrong key, model or URL stops the run; the key is read from an environment
variable, sent only in the request header and written nowhere. The conversions JSONL is the
cache: every request is appended as it finishes (``failed`` lines with their reason, answers
with the model the server reported) and a rerun sends only questions without an ``accepted``
or ``rejected`` line. :func:`write_pairs` turns the accepted conversions into a pairs file
(``biaswh ingest pairs`` reads it) with provenance; :func:`conversion_report` gives the
acceptance rate, the share identical to the source and the edit-distance distribution.
"""

from __future__ import annotations

import json
import statistics
import uuid
from collections import Counter
from pathlib import Path

from biaswh.ingest.common.llm.batch import ChatJob, JsonlCache, answer_all
from biaswh.ingest.common.llm.client import Answer
from biaswh.ingest.common.llm.settings import public_url
from biaswh.ingest.dialect.conversion_settings import DEFAULT_CONVERSION_TEMPLATE, ConversionSettings  # noqa: F401  (re-exported)
from biaswh.ingest.dialect.text_distance import token_edit_distance
from biaswh.warehouse.database.output_files import write_text_atomically
from biaswh.warehouse.errors import UserError


def is_acceptable(text: str) -> bool:
    """The original acceptance rule: the stripped reply is longer than 5 characters and ends with "?"."""
    return len(text) > 5 and text.endswith("?")


def read_cache(path: Path) -> dict[str, dict]:
    """The latest line per pair id (a line cut short by a crash is reported and ignored)."""
    return JsonlCache(path).read()


def _job(item: tuple[str, int, str], settings: ConversionSettings, run_id: str) -> ChatJob:
    pair_id, squad_idx, question = item
    prompt = settings.prompt_template.format(sae_query=question)

    def to_record(answer: Answer) -> dict:
        reply = answer.content.strip()
        status = ("accepted" if is_acceptable(reply) else "rejected") if answer.ok else "failed"
        return {
            "id": pair_id,
            "squad_idx": squad_idx,
            "sae_query": question,
            "prompt": prompt,
            "reply": reply,
            "status": status,
            "run_id": run_id,
            "model_name": settings.model,
            "sampling": settings.sampling(),
            "prompt_template": settings.prompt_template,
            **answer.record_fields(),
        }

    return ChatJob(settings.model, prompt, settings.sampling(), to_record)


def _check_cache_matches(path: Path, cached: dict[str, dict], settings: ConversionSettings) -> None:
    for record in cached.values():
        if record.get("status") in ("accepted", "rejected") and (
            record.get("model_name") != settings.model
            or record.get("sampling") != settings.sampling()
            or record.get("prompt_template") != settings.prompt_template
        ):
            raise UserError(
                f"{path} holds conversions made with another model, template or sampling parameters"
                f" (e.g. id {record['id']!r}); write to a new --out file instead of mixing them"
            )


def convert_questions(items: list[tuple[str, int, str]], out_path: str | Path, settings: ConversionSettings) -> dict:
    """Convert every (pair id, SQuAD row, question) without a final answer in ``out_path``; returns the report.

    Raises
    ------
    UserError
        A wrong key, model or URL; a cache made with other settings or holding a corrupt line.
    EndpointFailed
        When every request sent failed (each is recorded ``failed`` with its reason first).
    """
    if "{sae_query}" not in settings.prompt_template:
        raise UserError("the conversion prompt template must contain {sae_query}")
    cache = JsonlCache(out_path)
    cache.path.parent.mkdir(parents=True, exist_ok=True)
    cached = cache.read()
    _check_cache_matches(cache.path, cached, settings)
    todo = [i for i in items if cached.get(i[0], {}).get("status") not in ("accepted", "rejected")]
    run_id = uuid.uuid4().hex
    hint = f"check --base-url, --model and ${settings.api_key_env}"
    jobs = [_job(item, settings, run_id) for item in todo]
    result = answer_all(settings, cache, jobs, refused_hint=hint, order=[i[0] for i in items])
    records = cache.read()
    report = conversion_report([records[i[0]] for i in items if i[0] in records])
    return report | {"n_cached": len(items) - len(todo), "n_sent": result.n_sent, "n_retries": result.n_retries}


def conversion_report(records: list[dict]) -> dict:
    """Acceptance rate, share identical to the source, and the token edit-distance distribution."""
    accepted = [r for r in records if r["status"] == "accepted"]
    distances = [token_edit_distance(r["sae_query"], r["reply"]) for r in accepted]
    counts = Counter(min(d, 5) for d in distances)
    answered = sum(r["status"] in ("accepted", "rejected") for r in records)
    return {
        "n_questions": len(records),
        "n_accepted": len(accepted),
        "n_rejected": sum(r["status"] == "rejected" for r in records),
        "n_failed": sum(r["status"] in ("failed", "error") for r in records),  # "error": older caches
        "acceptance_rate": round(len(accepted) / answered, 4) if answered else None,
        "share_identical": round(sum(r["reply"] == r["sae_query"] for r in accepted) / len(accepted), 4)
        if accepted
        else None,
        "edit_distance_tokens": {
            "mean": round(statistics.fmean(distances), 3) if distances else None,
            "median": statistics.median(distances) if distances else None,
            "histogram": {("5+" if d == 5 else str(d)): counts.get(d, 0) for d in range(6)},
        },
    }


def write_pairs(records: list[dict], path: str | Path, settings: ConversionSettings, protocol: dict) -> int:
    """The accepted conversions as a pairs file (id, squad_idx, sae_query, aave_query) with provenance."""
    method = f"llm: {settings.model} via {public_url(settings.base_url)}; template sha256 {settings.template_sha256()}"
    rows = [
        {
            "id": r["id"],
            "squad_idx": r["squad_idx"],
            "sae_query": r["sae_query"],
            "aave_query": r["reply"],
            "source": "squad",
            "conversion_method": method,
            "sampling": r["sampling"],
            "sample_protocol": protocol,
            "converted_at": r["timestamp"],
        }
        for r in records
        if r["status"] == "accepted"
    ]
    write_text_atomically(Path(path), json.dumps(rows, indent=1, ensure_ascii=False))
    return len(rows)
