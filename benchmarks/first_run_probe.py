"""``python -m benchmarks.first_run_probe OUT.json ARGS...``: ``biaswh ARGS...`` with the first-run costs timed.

What a newcomer's first run pays beyond a warm one, each timed where it happens (exclusive of the
others: an encoder load inside an embedding call counts as load, not embedding): loading a
sentence encoder, embedding texts, importing precomputed vectors, making the Vega bundle, dbt's
parse of the project in this process, and waiting for a study run's dbt process (which parses
there when nothing is kept). The seconds and call counts go to ``OUT.json``
(:mod:`benchmarks.demo` reads them).
"""

from __future__ import annotations

import functools
import importlib
import json
import sys
import time
from pathlib import Path

# stage: (module, attribute holding the function or a class, method name or None)
PROBES = {
    "encoder load": [
        ("biaswh.ingest.weat.sentence_vectors", "load_sentence_encoder", None),
        ("biaswh.compute.retrieval.embeddings", "load_sentence_encoder", None),
    ],
    "embedding": [
        ("biaswh.compute.retrieval.embeddings", "LocalProvider", "embed"),
        ("biaswh.ingest.weat.sentence_vectors", "SentenceEncoder", "embed"),
    ],
    "vector import": [("biaswh.ingest.common.embedding_cache", "EmbeddingCache", "import_parquet")],
    "Vega bundle": [("biaswh.dashboards.common.vendor", "cached_bundle", None)],
    "dbt parse": [("biaswh.warehouse.dbt_build.invoke", "_parse", None)],
    # A study run's dbt process loads dbt (and parses, when nothing is kept) beside the run:
    # what the run waits for it (warehouse/dbt_build/build_process.py).
    "waiting for the dbt process": [("biaswh.warehouse.dbt_build.build_process", "_await_ready", None)],
}

_SECONDS: dict[str, float] = {stage: 0.0 for stage in PROBES}
_CALLS: dict[str, int] = {stage: 0 for stage in PROBES}
_NESTED: list[float] = []  # per open probe: seconds spent in probes it called


def _timed(stage: str, function):
    @functools.wraps(function)
    def timed(*args, **kwargs):
        _NESTED.append(0.0)
        start = time.perf_counter()
        try:
            return function(*args, **kwargs)
        finally:
            elapsed = time.perf_counter() - start
            _SECONDS[stage] += elapsed - _NESTED.pop()
            _CALLS[stage] += 1
            if _NESTED:
                _NESTED[-1] += elapsed

    return timed


def install() -> None:
    """Wrap every probed function in a timer (before any study runs)."""
    for stage, places in PROBES.items():
        for module_name, attribute, method in places:
            owner = getattr(importlib.import_module(module_name), attribute) if method else None
            if method:
                setattr(owner, method, _timed(stage, getattr(owner, method)))
            else:
                module = importlib.import_module(module_name)
                setattr(module, attribute, _timed(stage, getattr(module, attribute)))


def main(argv: list[str]) -> int:
    from biaswh.cli import main as biaswh

    out, arguments = Path(argv[0]), argv[1:]
    install()
    try:
        return biaswh(arguments)
    finally:
        timings = {stage: {"seconds": round(_SECONDS[stage], 2), "calls": _CALLS[stage]} for stage in PROBES}
        out.write_text(json.dumps(timings, indent=1), encoding="utf-8")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
