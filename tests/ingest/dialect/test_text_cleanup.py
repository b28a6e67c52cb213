import pytest

from biaswh.ingest.dialect.text_cleanup import CLEANUP_RULES, cleanup_named, light_cleanup, seed_compatible_cleanup
from biaswh.warehouse.errors import UserError


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


@pytest.mark.parametrize(
    ("raw", "cleaned"),
    [
        ("Who ain't got the keys?", "Who aingt got the keys?"),  # the original's known quirk
        ("Who ain\u2019t got the keys?", "Who aingt got the keys?"),
        ("Who be runnin' the show?", "Who be runnin' the show?"),  # its closing \b needs a letter after the '
        ("goin'-home", "goin'-home"),
        ("\u201cQuoted\u201d   text\n here ", '"Quoted" text here'),
    ],
)
def test_seed_compatible_cleanup_is_the_original_notebooks(raw, cleaned):
    assert seed_compatible_cleanup(raw) == cleaned


def test_light_cleanup_keeps_aint():
    assert light_cleanup("Who ain't got the keys?") == "Who ain't got the keys?"


def test_cleanup_options_name_their_rules():
    assert cleanup_named(True)[0] == cleanup_named("light")[0] == CLEANUP_RULES
    assert cleanup_named("seed_compatible")[1]("ain't") == "aingt"
    assert cleanup_named(False)[1]("runnin' ") == "runnin' "
    with pytest.raises(UserError, match="seed_compatible"):
        cleanup_named("seed-compatible")
