import pytest

from ingest.text_cleanup import light_cleanup


@pytest.mark.parametrize(
    ("raw", "cleaned"),
    [
        ("Who be runnin' the show?", "Who be running the show?"),
        ("Who be callin\u2019 fouls?", "Who be calling fouls?"),
        ("\u201cQuoted\u201d   text\n here ", '"Quoted" text here'),
        ("it\u2019s fine", "it's fine"),
        ("in' alone and begin'", "in' alone and beging"),  # a word must precede `in'`: `in'` alone is kept
        ("goin'-home", "going-home"),
        ("Nothing to change", "Nothing to change"),
    ],
)
def test_light_cleanup_applies_the_recorded_rules(raw, cleaned):
    assert light_cleanup(raw) == cleaned


def test_cleanup_keeps_apostrophes_inside_words():
    assert light_cleanup("winin'g") == "winin'g"
