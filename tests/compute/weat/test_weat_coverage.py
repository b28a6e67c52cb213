"""Match policies, definition exclusions, repeated vectors, balancing, and the insufficient-coverage status."""

from __future__ import annotations

import numpy as np
import pytest

from biaswh.compute.weat.coverage import Vocabulary, WordMatch, balance_targets, match_words, set_coverage
from biaswh.compute.weat.runner import WeatSettings, run_weat_test

# Built inside each test, never at import: a mutant of Vocabulary's constructor must reach it.
WORDS = ["NASA", "Nasa", "einstein", "John", "rose", "Rose"]


def _words(role: str, *words: str, excluded=()) -> list[dict]:
    return [
        {"set_role": role, "position": i, "word": w, "excluded_by_definition": w in excluded}
        for i, w in enumerate(words, start=1)
    ]


@pytest.mark.parametrize(
    "policy, expected",
    [
        ("exact", [("exact", "John"), ("missing", None), ("missing", None), ("missing", None)]),
        ("lower", [("exact", "John"), ("lower", "einstein"), ("missing", None), ("missing", None)]),
        ("casefold", [("exact", "John"), ("lower", "einstein"), ("casefold", "NASA"), ("missing", None)]),
    ],
)
def test_each_policy_records_how_a_word_was_found(policy, expected):
    matches = match_words(_words("target_x", "John", "Einstein", "nasa", "Darnell"), Vocabulary(WORDS), policy)
    assert [(m.match_kind, m.matched_word) for m in matches] == expected


def test_exclusions_count_nowhere_and_a_repeated_vector_is_used_once():
    words = _words("target_x", "rose", "Zinnia", excluded=("Zinnia",)) + _words("target_y", "ROSE")
    matches = match_words(words, Vocabulary(WORDS), "casefold")
    assert [m.match_kind for m in matches] == ["exact", "excluded_by_definition", "lower"]
    assert [m.used for m in matches] == [True, False, False]
    assert "same vector as 'rose' in target_x" in matches[2].drop_reason
    assert set_coverage(matches) == {"target_x": (1, 1, 1.0), "target_y": (1, 1, 1.0)}


def test_balancing_drops_seeded_random_words_from_the_larger_target_set():
    vocabulary = Vocabulary([f"w{i}" for i in range(10)])
    words = _words("target_x", *[f"w{i}" for i in range(6)]) + _words("target_y", "w6", "w7", "w8")
    matches = match_words(words, vocabulary, "exact")
    balanced = balance_targets(matches, np.random.default_rng(1))
    assert sum(m.used for m in balanced if m.set_role == "target_x") == 3
    assert all(m.used for m in balanced if m.set_role == "target_y")
    again = balance_targets(matches, np.random.default_rng(1))
    assert [m.used for m in again] == [m.used for m in balanced]
    assert all("balanced out" in m.drop_reason for m in balanced if not m.used)


def test_low_coverage_is_reported_with_reasons_and_no_numbers():
    vocabulary = Vocabulary(["a1", "a2", "b1", "b2", "x1", "y1", "y2"])
    vectors = np.random.default_rng(0).normal(size=(7, 5))
    words = (
        _words("target_x", "x1", "x2", "x3")
        + _words("target_y", "y1", "y2")
        + _words("attribute_a", "a1", "a2")
        + _words("attribute_b", "b1", "b2")
    )
    result = run_weat_test(
        words,
        embedding="e",
        test_set="s",
        test="t",
        vocabulary=vocabulary,
        vectors=vectors,
        settings=WeatSettings(),
        study_seed=1,
    )
    assert result.status == "insufficient coverage"
    assert "target_x found 1 of 3 words (33%)" in result.status_reason
    assert result.coverage == pytest.approx(1 / 3)
    assert (result.effect_size, result.p_value, result.ci_low) == (None, None, None)
    assert [m.word for m in result.matches if m.match_kind == "missing"] == ["x2", "x3"]


def test_balanced_run_uses_equal_target_sets_and_records_the_dropped_words():
    vocabulary = Vocabulary([f"x{i}" for i in range(6)] + ["y0", "y1", "y2", "a0", "a1", "b0", "b1"])
    vectors = np.random.default_rng(3).normal(size=(13, 8))
    words = (
        _words("target_x", *[f"x{i}" for i in range(6)])
        + _words("target_y", "y0", "y1", "y2")
        + _words("attribute_a", "a0", "a1")
        + _words("attribute_b", "b0", "b1")
    )
    result = run_weat_test(
        words,
        embedding="e",
        test_set="s",
        test="t",
        vocabulary=vocabulary,
        vectors=vectors,
        settings=WeatSettings(balance=True),
        study_seed=5,
    )
    assert result.status == "computed" and (result.n_target_x, result.n_target_y) == (3, 3)
    assert result.n_permutations == 20  # C(6, 3) partitions of the balanced sets
    assert sum("balanced out" in (m.drop_reason or "") for m in result.matches) == 3


@pytest.mark.parametrize("n_x", [4, 8])  # one word too many (the smallest imbalance), and five
def test_balancing_drops_exactly_the_excess_and_keeps_each_dropped_words_record(n_x):
    vocabulary = Vocabulary([f"x{i}" for i in range(n_x)] + ["y0", "y1", "y2"])
    words = _words("target_x", *[f"x{i}" for i in range(n_x)]) + _words("target_y", "y0", "y1", "y2")
    matches = match_words(words, vocabulary, "exact")
    for seed in range(30):  # drawn with replacement, some seed would drop a word twice and fewer than the excess
        balanced = balance_targets(matches, np.random.default_rng(seed))
        assert sum(m.used for m in balanced if m.set_role == "target_x") == 3, seed
        assert all(m.used for m in balanced if m.set_role == "target_y")
        for before, after in zip(matches, balanced):
            assert (after.set_role, after.position, after.word) == (before.set_role, before.position, before.word)
            assert (after.match_kind, after.matched_word) == ("exact", before.matched_word)
            if not after.used:
                assert after.drop_reason == "balanced out (seeded) to match the 3 words of target_y"


def test_each_record_keeps_its_set_position_and_word_and_says_why_it_is_unused():
    words = _words("target_x", "rose", "Zinnia", "ROSE", "John", "Darnell", excluded=("Zinnia",)) + _words(
        "attribute_a", "Tulip", excluded=("Tulip",)
    )
    matches = match_words(words, Vocabulary(WORDS), "lower")
    assert matches == [
        WordMatch("target_x", 1, "rose", "exact", "rose", True),
        WordMatch("target_x", 2, "Zinnia", "excluded_by_definition", None, False, "excluded by the test definition"),
        WordMatch("target_x", 3, "ROSE", "lower", "rose", False, "same vector as 'rose' in target_x"),
        WordMatch("target_x", 4, "John", "exact", "John", True),  # matched after a repeat, not left out
        WordMatch("target_x", 5, "Darnell", "missing", None, False),
        WordMatch("attribute_a", 1, "Tulip", "excluded_by_definition", None, False, "excluded by the test definition"),
    ]
    # A repeated vector is found (then not used); a set whose every word is excluded lists none and finds none.
    assert set_coverage(matches) == {"target_x": (3, 4, 0.75), "attribute_a": (0, 0, 0.0)}


def test_an_unknown_policy_is_refused_with_the_known_ones():
    with pytest.raises(ValueError) as refused:
        match_words(_words("target_x", "rose"), Vocabulary(WORDS), "fuzzy")
    assert str(refused.value) == "unknown match policy 'fuzzy'; expected one of ('exact', 'lower', 'casefold')"
