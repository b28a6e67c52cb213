"""The ``[retrieval]`` table of a study config, checked and resolved with its defaults.

```toml
[retrieval]
retrievers = ["bm25", "dense", "hybrid_union", "hybrid_minmax", "hybrid_rrf"]
# "bm25_seed_compatible": BM25 with the original notebook's argsort ranking (reproduction only).
# More BM25 settings in the same run: "bm25@k1=1.2,b=0.75" overrides [retrieval.bm25] (family bm25).
depth = 100                      # hits kept per query
query_sets = ["pairs"]           # "pairs" (every pair set), "pairs:<name>", "squad_questions:<split>", "queries:<name>"
timing = "batch"                 # or "per_query": score each query alone to time it
drop_documents_fraction = 0.0    # leave this share of documents out of every index (seeded): a drift scenario
tokenizer = { pattern = "[a-z0-9]+", lowercase = true }
bm25 = { k1 = 1.5, b = 0.75, epsilon = 0.25 }

[retrieval.embedding]
provider = "local"               # or "openai" (model, base_url, api_key_env, batch_size, ...)
model = "all-MiniLM-L6-v2"
precomputed = ["path/to/vectors.parquet"]   # text_sha256, vector, [text]; relative to the TOML

[retrieval.hybrid]
weights = [0.5, 0.5]             # min-max fusion weights: bm25, dense
rrf_k = 60
sweep_weights = []               # extra min-max points (bm25 weight), e.g. 0.0..1.0 step 0.1
sweep_rrf_k = []                 # extra RRF constants

[retrieval.ann]
index = "none"                   # exact search; or ivf_flat, ivf_hnsw_sq (recall reported), ivf_pq
```
"""

from __future__ import annotations

import math
import re
from dataclasses import asdict, dataclass, field

from biaswh.compute.retrieval.bm25_statistics import BM25Parameters
from biaswh.compute.retrieval.dense import ANN_INDEXES
from biaswh.compute.retrieval.hybrid import DEFAULT_RRF_K
from biaswh.compute.retrieval.tokenize import tokenizer_from_settings
from biaswh.warehouse.errors import UserError
from biaswh.warehouse.settings.config_schema import suggestion

RETRIEVERS = ("bm25", "dense", "hybrid_union", "hybrid_minmax", "hybrid_rrf")
# BM25 ranked as the original dialect notebook ranked (numpy.argsort(scores)[::-1], zero scores
# included): its own family, never a default, only for reproducing the published numbers.
SEED_COMPATIBLE_BM25 = "bm25_seed_compatible"
# What each retriever needs computed first.
NEEDS = {
    "bm25": {"bm25"},
    "dense": {"dense"},
    "hybrid_union": {"bm25", "dense"},
    "hybrid_minmax": {"bm25", "dense"},
    "hybrid_rrf": {"bm25", "dense"},
}
# A named BM25 setting: "bm25@" then k1=<number> and/or b=<number>, comma-separated.
_BM25_POINT = re.compile(r"bm25@(?P<settings>(?:k1|b)=[0-9.]+(?:,(?:k1|b)=[0-9.]+)?)")
_KEYS = {
    "retrievers",
    "depth",
    "query_sets",
    "timing",
    "tokenizer",
    "bm25",
    "embedding",
    "hybrid",
    "ann",
    "drop_documents_fraction",
}


@dataclass(frozen=True)
class RetrievalConfig:
    """A resolved ``[retrieval]`` table (see the module docstring for the TOML)."""

    retrievers: tuple[str, ...] = RETRIEVERS
    depth: int = 100
    query_sets: tuple[str, ...] = ("pairs",)
    timing: str = "batch"
    tokenizer: dict = field(default_factory=lambda: tokenizer_from_settings(None).describe())
    bm25: dict = field(default_factory=lambda: asdict(BM25Parameters()))
    embedding: dict = field(default_factory=lambda: {"provider": "local", "model": "all-MiniLM-L6-v2"})
    precomputed: tuple[str, ...] = ()
    weights: tuple[float, float] = (0.5, 0.5)
    rrf_k: float = DEFAULT_RRF_K
    sweep_weights: tuple[float, ...] = ()
    sweep_rrf_k: tuple[float, ...] = ()
    ann_index: str = "none"
    ann_partitions: int | None = None
    ann_probes: int | None = None
    # Not a TOML key: the job sets it from the study seed and the run's identity (an ANN index's partitions).
    ann_seed: int = 0
    drop_documents_fraction: float = 0.0

    @property
    def needs(self) -> set[str]:
        """The base retrievers to run (named BM25 settings are run on their own, not here)."""
        extra = {"bm25", "dense"} if self.sweep_weights or self.sweep_rrf_k else set()
        return set().union(extra, *(NEEDS.get(r, set()) for r in self.retrievers))

    @property
    def bm25_points(self) -> dict[str, dict]:
        """Each named BM25 setting (``bm25@k1=1.2,b=0.75``) and its full parameters, in listed order."""
        return {
            r: {**self.bm25, **bm25_point_settings(r)}
            for r in self.retrievers
            if r not in RETRIEVERS and r != SEED_COMPATIBLE_BM25
        }

    def record(self) -> dict:
        """The configuration as stored with the run (no secrets: keys are named by variable only)."""
        return asdict(self)


def bm25_point_settings(name: str) -> dict[str, float]:
    """The k1 and/or b that a named BM25 setting such as ``bm25@k1=1.2,b=0.75`` overrides."""
    match = _BM25_POINT.fullmatch(name)
    if match is None:
        raise UserError(f"[retrieval] retrievers: {name!r} is not a BM25 setting like 'bm25@k1=1.2,b=0.75'")
    settings = {}
    for item in match["settings"].split(","):
        key, value = item.split("=")
        try:
            settings[key] = float(value)
        except ValueError:
            raise UserError(f"[retrieval] retrievers: {name!r}: {value!r} is not a number") from None
    if len(settings) != len(match["settings"].split(",")):
        raise UserError(f"[retrieval] retrievers: {name!r} names a setting twice")
    return settings


def _number_list(values, name: str, problems: list[str]) -> tuple[float, ...]:
    """``values`` as floats; a non-list, a non-number, NaN or an infinity adds a problem and gives ``()``."""
    if not isinstance(values, list) or not all(
        isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in values
    ):
        problems.append(f"[retrieval] {name} must be a list of finite numbers, got {values!r}")
        return ()
    return tuple(float(v) for v in values)


def config_from_settings(settings: dict | None, *, resolve=lambda path: path) -> RetrievalConfig:
    """Check a study's ``[retrieval]`` table and fill in the defaults.

    Every problem is reported at once (one line each, in one :class:`UserError`). ``resolve``
    turns a path from the config into an absolute one (relative to the TOML).
    """
    settings = dict(settings or {})
    problems: list[str] = []
    unknown = set(settings) - _KEYS
    if unknown:
        problems.append(f"[retrieval] has unknown key(s): {', '.join(sorted(unknown))}")
    retrievers = tuple(settings.get("retrievers", RETRIEVERS))
    problems += _retriever_problems(retrievers)
    depth = settings.get("depth", 100)
    if not isinstance(depth, int) or isinstance(depth, bool) or depth < 1:
        problems.append(f"[retrieval] depth must be a positive integer, got {depth!r}")
    query_sets = tuple(settings.get("query_sets", ["pairs"]))
    for name in query_sets:
        if not (name == "pairs" or name.startswith(("pairs:", "squad_questions:", "queries:"))):
            problems.append(
                f"[retrieval] query_sets: {name!r} is not 'pairs', 'pairs:<name>', 'squad_questions:<split>'"
                " or 'queries:<name>'"
            )
    timing = settings.get("timing", "batch")
    if timing not in ("batch", "per_query"):
        close = suggestion(str(timing), ("batch", "per_query"))
        problems.append(f"[retrieval] timing must be 'batch' or 'per_query', got {timing!r}{close}")
    tokenizer = tokenizer_from_settings(settings.get("tokenizer")).describe()
    bm25 = {**asdict(BM25Parameters()), **settings.get("bm25", {})}
    if set(bm25) != {"k1", "b", "epsilon"}:
        problems.append("[retrieval.bm25] takes only k1, b and epsilon")
    embedding = dict(settings.get("embedding", {"provider": "local", "model": "all-MiniLM-L6-v2"}))
    precomputed = embedding.pop("precomputed", [])
    precomputed = tuple(resolve(p) for p in ([precomputed] if isinstance(precomputed, str) else precomputed))
    hybrid = dict(settings.get("hybrid", {}))
    unknown = set(hybrid) - {"weights", "rrf_k", "sweep_weights", "sweep_rrf_k"}
    if unknown:
        problems.append(f"[retrieval.hybrid] has unknown key(s): {', '.join(sorted(unknown))}")
    weights = _number_list(hybrid.get("weights", [0.5, 0.5]), "hybrid.weights", problems)
    if len(weights) != 2 or min(weights) < 0 or sum(weights) == 0:
        problems.append("[retrieval.hybrid] weights must be two non-negative numbers (bm25, dense), not both 0")
        weights = (0.5, 0.5)
    sweep_weights = _number_list(hybrid.get("sweep_weights", []), "hybrid.sweep_weights", problems)
    if any(not 0 <= w <= 1 for w in sweep_weights):
        problems.append("[retrieval.hybrid] sweep_weights are bm25 weights between 0 and 1")
    sweep_rrf_k = _number_list(hybrid.get("sweep_rrf_k", []), "hybrid.sweep_rrf_k", problems)
    rrf_k = _number_list([hybrid.get("rrf_k", DEFAULT_RRF_K)], "hybrid.rrf_k", problems)
    if any(k < 0 for k in (*rrf_k, *sweep_rrf_k)):
        problems.append("[retrieval.hybrid] RRF constants must be non-negative")
    ann = dict(settings.get("ann", {}))
    index = ann.get("index", "none")
    if index not in ANN_INDEXES:
        problems.append(
            f"[retrieval.ann] index must be one of {', '.join(ANN_INDEXES)}, got {index!r}"
            f"{suggestion(str(index), ANN_INDEXES)}"
        )
    drop = settings.get("drop_documents_fraction", 0.0)
    if not isinstance(drop, (int, float)) or not 0 <= drop < 1:
        problems.append(f"[retrieval] drop_documents_fraction must be in [0, 1), got {drop!r}")
    if problems:
        raise UserError("\n".join(problems))
    return RetrievalConfig(
        retrievers=retrievers,
        depth=depth,
        query_sets=query_sets,
        timing=timing,
        tokenizer=tokenizer,
        bm25=bm25,
        embedding=embedding,
        precomputed=precomputed,
        weights=(weights[0], weights[1]),
        rrf_k=rrf_k[0] if rrf_k else DEFAULT_RRF_K,
        sweep_weights=sweep_weights,
        sweep_rrf_k=sweep_rrf_k,
        ann_index=index,
        ann_partitions=ann.get("partitions"),
        ann_probes=ann.get("probes"),
        drop_documents_fraction=float(drop),
    )


def _retriever_problems(retrievers: tuple) -> list[str]:
    """What is wrong with the ``retrievers`` list: unknown names (with a did-you-mean), bad BM25 settings, repeats."""
    known = (*RETRIEVERS, SEED_COMPATIBLE_BM25)
    if not retrievers:
        return ["[retrieval] retrievers: none given; choose from " + ", ".join(known)]
    problems = []
    for name in retrievers:
        if name in known:
            continue
        if _BM25_POINT.fullmatch(name) is None:
            problems.append(
                f"[retrieval] retrievers: unknown {name}{suggestion(name, known)}; choose from "
                f"{', '.join(known)} or BM25 settings like 'bm25@k1=1.2,b=0.75'"
            )
            continue
        try:
            bm25_point_settings(name)
        except UserError as exc:
            problems.append(str(exc))
    if len(set(retrievers)) != len(retrievers):
        problems.append("[retrieval] retrievers: a retriever is listed twice")
    return problems
