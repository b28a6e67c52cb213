"""Text features of a post, offline: length, words, URL/emoji/hashtag/mention flags, sentiment.

Sentiment is TextBlob's pattern lexicon (bundled with the package; nothing is downloaded):
polarity -1 (negative) to 1 (positive), subjectivity 0 (objective) to 1 (subjective).
Model-based features (toxicity, topic, polarisation) are not computed here: they come in as
columns of the pool, declared in its feature table.
"""

from __future__ import annotations

import re

# feature -> its type in the feature table (ingest/recsys/posts.py)
TEXT_FEATURE_TYPES = {
    "text_length": "numerical",
    "word_count": "numerical",
    "avg_word_length": "numerical",
    "has_url": "binary",
    "has_emoji": "binary",
    "has_hashtag": "binary",
    "has_mention": "binary",
    "sentiment_polarity": "numerical",
    "sentiment_subjectivity": "numerical",
}
_URL = re.compile(r"(?:https?://|www\.)\S+", re.IGNORECASE)
_HASHTAG = re.compile(r"(?<!\w)#\w+")
_MENTION = re.compile(r"(?<![\w.])@\w+")
# Emoji blocks: pictographs, emoticons, transport, supplemental symbols, dingbats, flags.
_EMOJI = re.compile("[\U0001f300-\U0001faff\U00002600-\U000027bf\U0001f1e6-\U0001f1ff\U00002b50\U00002b55]")


def text_features(text: str) -> dict[str, float | int]:
    """Every feature of TEXT_FEATURE_TYPES for one post (flags are 0/1; an empty text has 0 words)."""
    # Imported here: textblob imports nltk (seconds), and every study loads this module as a plugin.
    from textblob import TextBlob

    text = text or ""
    words = _URL.sub(" ", text).split()  # a URL is not a word
    sentiment = TextBlob(text).sentiment
    return {
        "text_length": len(text),
        "word_count": len(words),
        "avg_word_length": sum(len(w) for w in words) / len(words) if words else 0.0,
        "has_url": int(bool(_URL.search(text))),
        "has_emoji": int(bool(_EMOJI.search(text))),
        "has_hashtag": int(bool(_HASHTAG.search(text))),
        "has_mention": int(bool(_MENTION.search(text))),
        "sentiment_polarity": float(sentiment.polarity),
        "sentiment_subjectivity": float(sentiment.subjectivity),
    }


def with_text_features(posts: list[dict], *, text_column: str = "text") -> list[dict]:
    """The posts with their text features added; a column the pool already has is kept, not overwritten."""
    return [{**text_features(str(post.get(text_column) or "")), **post} for post in posts]
