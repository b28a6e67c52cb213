"""Offline text features: lengths, flags and TextBlob's lexicon sentiment, with nothing downloaded."""

from __future__ import annotations

import pytest
from textblob import TextBlob

from biaswh.ingest.recsys.text_features import TEXT_FEATURE_TYPES, text_features, with_text_features


def test_lengths_and_flags_of_a_post():
    text = "Great news from @nasa today 🚀 #space https://example.org/a?b=1"
    features = text_features(text)
    assert set(features) == set(TEXT_FEATURE_TYPES)
    words = ["Great", "news", "from", "@nasa", "today", "🚀", "#space"]  # the URL is not a word
    assert features["text_length"] == len(text)
    assert features["word_count"] == len(words)
    assert features["avg_word_length"] == pytest.approx(sum(map(len, words)) / len(words))
    flags = ("has_url", "has_emoji", "has_hashtag", "has_mention")
    assert [features[flag] for flag in flags] == [1, 1, 1, 1]


@pytest.mark.parametrize(
    "text, flags",
    [
        ("plain words only", (0, 0, 0, 0)),
        ("mail me at someone@example.org", (0, 0, 0, 0)),  # an address is not a mention
        ("issue#12 is not a hashtag but #this is", (0, 0, 1, 0)),
        ("visit www.example.org ☀", (1, 1, 0, 0)),
    ],
)
def test_flags_ignore_lookalikes(text, flags):
    features = text_features(text)
    assert (features["has_url"], features["has_emoji"], features["has_hashtag"], features["has_mention"]) == flags


def test_sentiment_is_textblobs_lexicon_and_empty_text_is_neutral():
    text = "I love this wonderful city, but the traffic is terrible."
    features = text_features(text)
    assert (features["sentiment_polarity"], features["sentiment_subjectivity"]) == tuple(TextBlob(text).sentiment)
    assert features["sentiment_polarity"] > 0
    assert text_features("") == {**dict.fromkeys(TEXT_FEATURE_TYPES, 0), "avg_word_length": 0.0}


def test_pool_columns_win_over_computed_features():
    posts = with_text_features([{"post_id": "a", "text": "short", "text_length": 99}, {"post_id": "b", "text": None}])
    assert posts[0]["text_length"] == 99 and posts[0]["word_count"] == 1
    assert posts[1]["word_count"] == 0
