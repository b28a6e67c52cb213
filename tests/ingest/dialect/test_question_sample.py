"""The original study's question sample: filters, de-duplication, seeded draw."""

import json

import pyarrow.parquet as pq
import pytest

from biaswh.ingest.dialect.question_sample import SampleProtocol, eligible_questions, sample_questions
from tests.conftest import shared_file


def test_filters_and_case_insensitive_deduplication_keep_the_first():
    questions = [
        "  Who wrote Hamlet?  ",  # kept, stripped
        "Short?",  # under 10 characters
        "Who wrote this play",  # no question mark
        "Hamlet's author?",  # 2 tokens
        "WHO WROTE HAMLET?",  # duplicate of row 0, case-insensitive
        "Q" * 199 + "?",  # 200 characters but one token
        "What " + "x" * 195 + "?",  # 201 characters
        "Where is Elsinore castle?",
    ]
    assert eligible_questions(questions) == [(0, "Who wrote Hamlet?"), (7, "Where is Elsinore castle?")]


def test_the_sample_is_seeded_and_recorded():
    questions = [f"What is question number {i}?" for i in range(100)]
    protocol = SampleProtocol(sample_size=10, seed=3)
    assert sample_questions(questions, protocol) == sample_questions(questions, protocol)
    assert sample_questions(questions, protocol) != sample_questions(questions, SampleProtocol(sample_size=10, seed=4))
    assert protocol.describe()["seed"] == 3
    assert len(sample_questions(questions[:5], protocol)) == 5  # fewer eligible than asked: all of them


@pytest.mark.real_data
def test_seed_42_draws_the_published_200_questions_in_order():
    questions = pq.read_table(shared_file("squad-v1.1/train.parquet"), columns=["question"]).column("question")
    pairs = json.loads(shared_file("dialect-pairs/aave_poc_dataset_20250927-193921.json").read_text("utf-8"))
    sampled = sample_questions(questions.to_pylist(), SampleProtocol(sample_size=200, seed=42))
    assert [idx for idx, _ in sampled] == [p["squad_idx"] for p in pairs]
    assert [q for _, q in sampled] == [p["sae_query"].strip() for p in pairs]
