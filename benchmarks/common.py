"""What the benchmarks share: the real data, the corpus normalisation, and writing results."""

from __future__ import annotations

import json
import os
import platform
import re
import time
from pathlib import Path

from biaswh.warehouse.runs.registry import code_version, package_versions
from biaswh.warehouse.settings.home import REPOSITORY_ROOT

# BIASWH_SHARED_DATA overrides the location (as in tests/conftest.py).
SHARED_DATA = Path(os.environ.get("BIASWH_SHARED_DATA") or REPOSITORY_ROOT.parent / "shared" / "data")
RESULTS_DIR = Path(__file__).resolve().parent / "results"
SQUAD_TRAIN = SHARED_DATA / "squad-v1.1" / "train.parquet"
PAIRS = SHARED_DATA / "dialect-pairs" / "aave_poc_dataset_20250927-193921.json"
EMBEDDINGS = SHARED_DATA / "embeddings" / "all-MiniLM-L6-v2.parquet"

_QUOTES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"'})
_WHITESPACE = re.compile(r"\s+")


def normalise_context(text: str) -> str:
    """The corpus normalisation of ``marts.dim_corpus_documents`` (macro ``normalise_text``)."""
    return _WHITESPACE.sub(" ", text.translate(_QUOTES)).strip()


def squad_train_corpus() -> list[str]:
    """The 18,891 normalised, de-duplicated SQuAD train contexts in first-occurrence order."""
    import pyarrow.parquet as pq

    contexts = pq.read_table(SQUAD_TRAIN, columns=["context"]).column("context").to_pylist()
    return list(dict.fromkeys(normalise_context(c) for c in contexts))


def pair_queries() -> list[str]:
    """The 400 real pair queries (SAE and AAE of 200 pairs) after the light clean-up, as the study asks them."""
    from biaswh.ingest.dialect.text_cleanup import light_cleanup

    pairs = json.loads(PAIRS.read_text(encoding="utf-8"))
    return [light_cleanup(p[column]) for p in pairs for column in ("sae_query", "aave_query")]


def original_bm25_loop_seconds(depth: int = 100) -> float | None:
    """The original study's BM25 (rank_bm25 ``get_scores`` + ``argsort`` per query over the 400 real
    pair queries), timed now: the yardstick of the ratio targets (None without the shared data)."""
    if not (SQUAD_TRAIN.exists() and PAIRS.exists()):
        return None
    import numpy as np
    from rank_bm25 import BM25Okapi

    tokenize = lambda text: re.findall(r"[a-z0-9]+", text.lower())  # noqa: E731  the original tokenizer
    start = time.perf_counter()
    index = BM25Okapi([tokenize(d) for d in squad_train_corpus()])
    for query in pair_queries():
        scores = index.get_scores(tokenize(query))
        np.argsort(scores)[::-1][:depth]
    return time.perf_counter() - start


def ratio_verdict(seconds: float, yardstick: float | None, target_ratio: float, stages: dict[str, float]) -> dict:
    """``seconds / yardstick`` against ``target_ratio``; on a miss, by how much and the stages that cost most."""
    if not yardstick:
        return {"ratio": None, "target_ratio": target_ratio, "meets_target": None, "note": "no yardstick (shared data)"}
    ratio = seconds / yardstick
    verdict = {"ratio": round(ratio, 3), "target_ratio": target_ratio, "meets_target": ratio <= target_ratio}
    if ratio > target_ratio:
        verdict["missed_by_seconds"] = round(seconds - target_ratio * yardstick, 2)
        verdict["where_the_time_goes"] = dict(
            sorted(((k, round(v, 2)) for k, v in stages.items()), key=lambda kv: -kv[1])
        )
    return verdict


def study_stages(home: Path) -> dict[str, dict[str, float]]:
    """Each study run's stage seconds (``raw.runs.stage_seconds``), by its config file name, oldest first."""
    import duckdb

    with duckdb.connect(str(home / "warehouse.duckdb"), read_only=True) as con:
        rows = con.execute(
            "select parameters->>'$.config', stage_seconds from raw.runs where kind = 'study' order by started_at"
        ).fetchall()
    return {Path(name).name: {k: round(v, 2) for k, v in json.loads(stages or "{}").items()} for name, stages in rows}


def write_result(name: str, result: dict) -> Path:
    """Write one benchmark's JSON (with machine and code provenance) and print it."""
    result = {
        "benchmark": name,
        "code_version": code_version(),
        "python": platform.python_version(),
        "machine": platform.machine(),
        "packages": {
            k: v
            for k, v in package_versions().items()
            if k in ("numpy", "rank-bm25", "lancedb", "torch", "sentence-transformers")
        },
        **result,
    }
    RESULTS_DIR.mkdir(parents=True, exist_ok=True)
    path = RESULTS_DIR / f"{name}.json"
    path.write_text(json.dumps(result, indent=2, sort_keys=False) + "\n", encoding="utf-8")
    print(json.dumps(result, indent=2))
    return path
