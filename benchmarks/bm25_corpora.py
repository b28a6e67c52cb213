"""The corpora of the BM25 peers benchmark, tokenized once and shared by every library timed.

SQuAD train: the 18,891 normalised contexts and all 87,599 train questions. The 1 M-document
corpus is synthetic (labelled so in every result): each document is one to three sentences
drawn with a fixed seed from SQuAD train's contexts, so its vocabulary and term frequencies
are real English, at a size SQuAD does not reach. It is generated in the benchmark, never stored.
"""

from __future__ import annotations

import os
import re

import numpy as np

from benchmarks.common import SQUAD_TRAIN, pair_queries, squad_train_corpus
from biaswh.compute.retrieval.tokenize import RegexTokenizer

SYNTHETIC_DOCUMENTS = 1_000_000
SYNTHETIC_SEED = 20261128
# A sentence ends at . ! or ? followed by a space.
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+")
# The machine counts as quiet while its 1-minute load average stays under this per core (the
# benchmark's own threads, at most one per core, are allowed for in the reading after).
QUIET_LOAD_PER_CORE = 0.5


def squad_tokens() -> dict:
    """SQuAD train's contexts and questions as token lists, and the 400 real pair queries'."""
    import pyarrow.parquet as pq

    tokenizer = RegexTokenizer()
    questions = pq.read_table(SQUAD_TRAIN, columns=["question"]).column("question").to_pylist()
    return {
        "documents": [tokenizer(text) for text in squad_train_corpus()],
        "questions": [tokenizer(text) for text in questions],
        "pair_queries": [tokenizer(text) for text in pair_queries()],
    }


def synthetic_documents(n_documents: int = SYNTHETIC_DOCUMENTS, seed: int = SYNTHETIC_SEED) -> list[list[str]]:
    """``n_documents`` synthetic token lists of one to three seeded SQuAD train sentences each.

    A document is built from the sentences' token lists (the tokens are shared objects), so a
    million documents cost the lists, not a million copies of their words.
    """
    tokenizer = RegexTokenizer()
    sentences = [tokenizer(s) for context in squad_train_corpus() for s in _SENTENCE_END.split(context)]
    sentences = [tokens for tokens in sentences if tokens]
    rng = np.random.default_rng(seed)
    counts = rng.integers(1, 4, size=n_documents)
    picks = rng.integers(0, len(sentences), size=int(counts.sum())).tolist()
    documents, at = [], 0
    for count in counts.tolist():
        document = []
        for pick in picks[at : at + count]:
            document += sentences[pick]
        documents.append(document)
        at += count
    return documents


def seeded_sample(items: list, size: int, seed: int) -> tuple[list, list[int]]:
    """``size`` items drawn without replacement with ``seed``, in their original order, and their positions."""
    positions = sorted(np.random.default_rng(seed).choice(len(items), size=min(size, len(items)), replace=False))
    return [items[p] for p in positions], [int(p) for p in positions]


def load_reading() -> dict:
    """The 1-, 5- and 15-minute load averages now."""
    one, five, fifteen = os.getloadavg()
    return {"1min": round(one, 2), "5min": round(five, 2), "15min": round(fifteen, 2)}


def quiet_verdict(before: dict, after: dict, own_threads: int) -> dict:
    """Whether the machine was quiet: load under :data:`QUIET_LOAD_PER_CORE` per core before, and
    after once the benchmark's own ``own_threads`` are allowed for."""
    cores = os.cpu_count() or 1
    limit = QUIET_LOAD_PER_CORE * cores
    quiet = before["1min"] <= limit and after["1min"] <= limit + own_threads
    return {"cores": cores, "before": before, "after": after, "quiet": quiet, "quiet_limit_1min": limit}
