"""The original dialect study's question sample: filters, de-duplication and a seeded draw.

As its generation notebook: each question stripped; kept when 10 to 200 characters long,
ending with "?", with at least 3 whitespace tokens; case-insensitive duplicates dropped
(the first kept); then ``random.Random(seed).sample(kept, n)``. With seed 42 and n = 200
over SQuAD v1.1 train this draws exactly the 200 questions of the published pairs, in
their order (``tests/ingest/test_question_sample.py``).
"""

from __future__ import annotations

import random
from dataclasses import asdict, dataclass


@dataclass(frozen=True)
class SampleProtocol:
    """The filters and draw, recorded with every generated pairs file."""

    sample_size: int = 200
    seed: int = 42
    min_length: int = 10
    max_length: int = 200
    min_tokens: int = 3

    def describe(self) -> dict:
        return asdict(self)


def eligible_questions(questions: list[str], protocol: SampleProtocol = SampleProtocol()) -> list[tuple[int, str]]:
    """(row index, stripped question) of every question passing the filters, duplicates dropped."""
    kept, seen = [], set()
    for index, question in enumerate(questions):
        text = (question or "").strip()
        if not protocol.min_length <= len(text) <= protocol.max_length:
            continue
        if not text.endswith("?") or len(text.split()) < protocol.min_tokens:
            continue
        if text.lower() in seen:
            continue
        seen.add(text.lower())
        kept.append((index, text))
    return kept


def sample_questions(questions: list[str], protocol: SampleProtocol = SampleProtocol()) -> list[tuple[int, str]]:
    """The seeded sample (all eligible questions when there are no more than ``sample_size``)."""
    kept = eligible_questions(questions, protocol)
    if len(kept) <= protocol.sample_size:
        return kept
    return random.Random(protocol.seed).sample(kept, protocol.sample_size)
