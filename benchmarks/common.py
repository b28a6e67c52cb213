"""What the benchmarks share: the real data, the corpus normalisation, and writing results."""

from __future__ import annotations

import json
import os
import platform
import re
from pathlib import Path

from warehouse.runs import code_version, package_versions
from warehouse.settings import REPOSITORY_ROOT

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
    from ingest.dialect.text_cleanup import light_cleanup

    pairs = json.loads(PAIRS.read_text(encoding="utf-8"))
    return [light_cleanup(p[column]) for p in pairs for column in ("sae_query", "aave_query")]


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
