"""Run the recommendation experiment against an OpenAI-compatible endpoint and write post-level data.

From a pool file (``post_id``, ``text`` and feature columns) each trial samples ``n_posts``
posts (seeded; the same sample for every model and prompt style of a trial, so conditions
are paired), asks one model in one prompt style for the ids of its top ``k``, and parses the
reply (ingest/recsys/parse_reply.py). Requests go through the one client (ingest/common/llm/): a bounded
pool, a whole-request deadline, retries with backoff, and every reply checked (JSON, shape,
non-empty content, size) before it is parsed. The trials JSONL is the cache: every request is
appended with its prompt, template, raw response, the model the server reported, the parse,
or (status ``failed``) the reason it failed; a rerun sends only trials without a usable reply,
and a run whose every request failed stops. The posts file it writes (one row per post shown
in a usable trial, with ``selected``) is what ``recsys_posts`` loads. The API key is read
from an environment variable, used only in the request header, and never written or printed.
"""

from __future__ import annotations

import csv
import tomllib
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from biaswh.ingest.common.llm.batch import ChatJob, JsonlCache, answer_all
from biaswh.ingest.common.llm.client import Answer
from biaswh.ingest.common.llm.settings import EndpointSettings
from biaswh.ingest.common.readers import read_records
from biaswh.ingest.recsys.parse_reply import parse_reply
from biaswh.ingest.recsys.text_features import with_text_features
from biaswh.warehouse.database.output_files import atomic_output, name_in_folder
from biaswh.warehouse.errors import InputError, UserError
from biaswh.warehouse.settings.random_seeds import derive_seed

DEFAULT_PROMPT_STYLES = Path(__file__).with_name("prompt_styles.toml")
USABLE = ("ok", "partial")


@dataclass(frozen=True, kw_only=True)
class ExperimentSettings(EndpointSettings):
    """Who is asked what: models, prompt styles, sample sizes; and the endpoint (checked when built)."""

    models: tuple[str, ...]
    prompt_styles: tuple[str, ...] = ("general", "popular", "engaging", "informative", "controversial", "neutral")
    n_posts: int = 50
    k: int = 10
    trials: int = 10
    dataset: str = "pool"
    seed: int = 0
    temperature: float = 0.0
    concurrency: int = 4
    max_retries: int = 3
    backoff_seconds: float = 0.5
    timeout_seconds: float = 120.0
    prompt_styles_path: str = str(DEFAULT_PROMPT_STYLES)


@dataclass(frozen=True)
class ExperimentSummary:
    """What a run did; ``posts_path`` is the post-level file for ``recsys_posts``."""

    trials_path: Path
    posts_path: Path
    n_trials: int
    n_cached: int
    n_sent: int
    n_usable: int
    n_failed: int
    message: str = field(default="")


def read_prompt_styles(path: str | Path) -> tuple[str, dict[str, str]]:
    """The template and ``style -> instruction`` of a prompt-styles TOML file."""
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise UserError(f"{path}: cannot read the prompt styles ({exc})") from None
    template, styles = data.get("template"), data.get("styles")
    if not isinstance(template, str) or not all(f"{{{n}}}" in template for n in ("instruction", "posts", "k")):
        raise UserError(f"{path}: template must be a string with {{instruction}}, {{posts}} and {{k}}")
    if not isinstance(styles, dict) or not all(isinstance(v, str) for v in styles.values()):
        raise UserError(f"{path}: [styles] must map each style name to its instruction text")
    return template, styles


def read_pool(path: str | Path) -> list[dict]:
    """The pool's posts; each needs a unique, non-empty ``post_id`` and a ``text``."""
    path = Path(path).expanduser().resolve()
    records = read_records(path, allowed=("csv", "jsonl", "parquet"))
    seen: dict[str, int] = {}
    for row, record in enumerate(records, start=1):
        for column in ("post_id", "text"):
            if record.get(column) is None or str(record[column]).strip() == "":
                raise InputError(path, "missing value", row=row, field=column)
        post_id = str(record["post_id"]).strip()
        if post_id in seen:
            message = f"duplicate post_id {post_id!r} (first in row {seen[post_id]})"
            raise InputError(path, message, row=row, field="post_id")
        seen[post_id] = row
    if not records:
        raise InputError(path, "contains no posts")
    return records


def _plan(pool: list[dict], settings: ExperimentSettings) -> list[dict]:
    ids = [str(p["post_id"]).strip() for p in pool]
    if settings.n_posts > len(ids) or not 0 < settings.k < settings.n_posts:
        raise UserError(f"need 0 < k ({settings.k}) < n_posts ({settings.n_posts}) <= pool size ({len(ids)})")
    samples = {}
    for trial in range(1, settings.trials + 1):
        rng = np.random.default_rng(derive_seed(settings.seed, "recsys", "experiment", settings.dataset, trial))
        samples[trial] = [ids[i] for i in rng.choice(len(ids), settings.n_posts, replace=False)]
    return [
        {"key": f"{model}|{style}|{trial}", "model": model, "prompt_style": style, "trial": trial, "shown": shown}
        for model in settings.models
        for style in settings.prompt_styles
        for trial, shown in samples.items()
    ]


def _job(trial: dict, prompt: str, template: str, settings: ExperimentSettings) -> ChatJob:
    def to_record(answer: Answer) -> dict:
        record = {
            **trial,
            "prompt": prompt,
            "prompt_template": template,
            "k": settings.k,
            "raw_response": answer.content if answer.ok else None,
            "status": "failed",
            "dataset": settings.dataset,
            "temperature": settings.temperature,
            **answer.record_fields(),
        }
        if answer.ok:
            parsed = parse_reply(answer.content, shown_ids=trial["shown"], k=settings.k)
            record.update({f"parse_{k}": v for k, v in asdict(parsed).items()}, status=parsed.status)
        return record

    return ChatJob(trial["model"], prompt, {"temperature": settings.temperature}, to_record)


def _write_posts(path: Path, pool: list[dict], feature_columns: list[str], trials: list[dict]) -> None:
    by_id = {str(p["post_id"]).strip(): p for p in pool}
    with atomic_output(path, newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["post_id", "dataset", "provider", "prompt_style", "trial", "selected", *feature_columns])
        for trial in sorted(trials, key=lambda t: (t["model"], t["prompt_style"], t["trial"])):
            chosen = set(trial["parse_ids"])
            for post_id in trial["shown"]:
                post = by_id[post_id]
                writer.writerow(
                    [
                        post_id,
                        trial["dataset"],
                        trial["model"],
                        trial["prompt_style"],
                        trial["trial"],
                        int(post_id in chosen),
                        *(post.get(c) for c in feature_columns),
                    ]
                )


def run_experiment(
    pool_path: str | Path,
    feature_columns: list[str],
    out_dir: str | Path,
    settings: ExperimentSettings,
    *,
    name: str,
    text_features: bool = False,
) -> ExperimentSummary:
    """Run (or resume) every trial and write ``<name>_trials.jsonl`` and ``<name>_posts.csv`` in ``out_dir``.

    ``feature_columns`` are the pool columns copied to the posts file; with ``text_features``
    the offline text features (ingest/recsys/text_features.py) are computed for the pool first.
    """
    template, styles = read_prompt_styles(settings.prompt_styles_path)
    unknown = sorted(set(settings.prompt_styles) - set(styles))
    if unknown:
        raise UserError(f"prompt style(s) {unknown} not in {settings.prompt_styles_path}; known: {sorted(styles)}")
    pool = read_pool(pool_path)
    if text_features:
        pool = with_text_features(pool)
    text_by_id = {str(p["post_id"]).strip(): " ".join(str(p["text"]).split()) for p in pool}
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    what = "the recsys_experiment name's file"
    trials_path = name_in_folder(out_dir, f"{name}_trials.jsonl", what=what)
    posts_path = name_in_folder(out_dir, f"{name}_posts.csv", what=what)
    cached = {k: v for k, v in read_cache_by_key(trials_path).items() if v.get("status") in USABLE}
    plan = _plan(pool, settings)
    prompts = {
        t["key"]: template.format(
            instruction=styles[t["prompt_style"]],
            n=settings.n_posts,
            k=settings.k,
            posts="\n".join(f"[{i}] {text_by_id[i]}" for i in t["shown"]),
        )
        for t in plan
    }
    stale = [k for k, v in cached.items() if v.get("prompt") != prompts.get(k)]
    if stale:
        raise UserError(
            f"{trials_path} holds trials asked with another pool, template or sample (e.g. {stale[0]!r});"
            " write to a new name instead of mixing them"
        )
    todo = [t for t in plan if t["key"] not in cached]
    hint = f"check base_url, models and ${settings.api_key_env}"
    jobs = [_job(t, prompts[t["key"]], template, settings) for t in todo]
    results = answer_all(settings, JsonlCache(trials_path, key_field="key"), jobs, refused_hint=hint).records
    usable = {**cached, **{r["key"]: r for r in results if r["status"] in USABLE}}
    _write_posts(posts_path, pool, feature_columns, [usable[t["key"]] for t in plan if t["key"] in usable])
    n_usable = len(usable)
    message = (
        f"{trials_path}: {len(plan)} trials, {len(plan) - len(todo)} cached, {len(todo)} sent,"
        f" {n_usable} usable, {len(plan) - n_usable} failed or unparseable"
    )
    return ExperimentSummary(
        trials_path, posts_path, len(plan), len(plan) - len(todo), len(todo), n_usable, len(plan) - n_usable, message
    )


def read_cache_by_key(path: Path) -> dict[str, dict]:
    """The latest trial record per key (a line cut short by a crash is reported and ignored)."""
    return JsonlCache(path, key_field="key").read()
