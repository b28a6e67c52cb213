"""What the retrieval runner reads and returns: queries, a split's corpus, one retriever's output."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Query:
    """One query of a query set."""

    query_id: str
    variant: str
    corpus_split: str
    text: str
    relevant_doc_id: int | None = None


@dataclass(frozen=True)
class Corpus:
    """One split's documents (ids ascending).

    A corpus shard (:func:`biaswh.compute.retrieval.shards.shard_corpora`) also carries ``tile_before``
    and ``tile_after``: the texts of the other documents of its first and last dense tiles, which
    exact dense search scores beside its own (so every score has the unsharded bits) and never ranks.
    """

    doc_ids: list[int]
    texts: list[str]
    tile_before: tuple[str, ...] = ()
    tile_after: tuple[str, ...] = ()


@dataclass
class RetrieverOutput:
    """One retriever's hits for every query (aligned with the queries), with timing and settings."""

    retriever: str
    family: str
    hits: list = field(default_factory=list)
    latency_ms: list = field(default_factory=list)
    seconds: float = 0.0
    details: dict = field(default_factory=dict)
