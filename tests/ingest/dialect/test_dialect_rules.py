"""The offline AAE rules: each switchable alone, cited, deterministic, and recording what fired."""

import pytest

from biaswh.ingest.dialect.rules import RULE_ORDER, RULES, transform
from biaswh.ingest.dialect.word_forms import bare_verb
from biaswh.warehouse.errors import UserError

# One question per rule where exactly that rule applies, and what the rule alone makes of it.
EXAMPLES = {
    "no_inversion": ("How deep was the focus of the earthquake?", "How deep the focus of the earthquake?"),
    "aux_be_deletion": ("Who is running the show?", "Who running the show?"),
    "habitual_be": ("What is usually served at dinner?", "What be usually served at dinner?"),
    "copula_deletion": ("What is the capital of France?", "What the capital of France?"),
    "aint": ("Why isn't the bridge open?", "Why ain't the bridge open?"),
    "negative_concord": ("Why didn't anyone see anything?", "Why didn't nobody see nothing?"),
    "third_singular_s_absence": ("Who owns the company?", "Who own the company?"),
    "zero_past_tense": ("Who overshadowed Dennis Hastert?", "Who overshadow Dennis Hastert?"),
    "g_dropping": ("What were they building during the war?", "What were they buildin' durin' the war?"),
}


def test_every_rule_has_an_example_and_a_citation():
    assert set(EXAMPLES) == set(RULES) == set(RULE_ORDER)
    for rule in RULES.values():
        assert rule.source.startswith(("eWAVE ", "Green (2002)")), rule.name


@pytest.mark.parametrize("rule", RULE_ORDER)
def test_each_rule_can_be_switched_on_alone(rule):
    question, expected = EXAMPLES[rule]
    variant = transform(question, (rule,))
    assert variant.text == expected
    assert variant.rules_fired == (rule,)


@pytest.mark.parametrize("rule", RULE_ORDER)
def test_a_rule_that_does_not_apply_records_nothing(rule):
    variant = transform("Name the river.", (rule,))
    assert variant.text == "Name the river." and variant.rules_fired == ()


def test_all_rules_together_record_every_rule_that_fired_in_order():
    variant = transform("Why isn't anyone running the bridge?")
    assert variant.text == "Why ain't nobody runnin' the bridge?"
    assert variant.rules_fired == ("aint", "negative_concord", "g_dropping")


def test_past_be_after_a_subject_phrase_is_kept():
    # "What dye was known ..." asks about the subject: nothing is inverted, and AAE keeps past be.
    assert transform("What dye was known as the Blood of Saint John?", ("no_inversion",)).rules_fired == ()
    assert transform("What company did Seagram buy?", ("no_inversion",)).text == "What company Seagram buy?"


def test_copula_is_kept_sentence_initially_and_before_progressives():
    assert transform("Is Paris the capital?", ("copula_deletion",)).rules_fired == ()
    assert transform("Who is running?", ("copula_deletion",)).rules_fired == ()


def test_bare_forms_of_regular_verbs():
    words = ["released", "provoked", "looked", "focused", "stopped", "carried", "created", "walked", "called"]
    assert [bare_verb(w) for w in words] == [
        "release", "provoke", "look", "focus", "stop", "carry", "create", "walk", "call"
    ]  # fmt: skip
    assert bare_verb("agreed") is None and bare_verb("red") is None


def test_deterministic_given_a_seed():
    question = "Why isn't anyone running or building anything during the war?"
    runs = {transform(question, seed=7, rate=0.5) for _ in range(3)}
    assert len(runs) == 1
    variants = {transform(question, seed=seed, rate=0.5).text for seed in range(20)}
    assert len(variants) > 1  # the seed matters when rate < 1


def test_capitals_and_punctuation_survive():
    assert transform('Is "Hamlet" showing?', ("g_dropping",)).text == 'Is "Hamlet" showin\'?'
    assert transform("Isn't it late?", ("aint",)).text == "Ain't it late?"


def test_unknown_rule_is_refused_with_the_known_ones():
    with pytest.raises(UserError, match="copula_deletion"):
        transform("What is it?", ("copula_deleton",))
