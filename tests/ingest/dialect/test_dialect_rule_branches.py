"""Every branch of every offline AAE rule (ingest/dialect/rules.py), one case each, the rule alone.

A case that should fire names the site; a case that should not names the guard that stops it.
Without this table a rule could silently stop firing on a branch (e.g. "is not" -> "ain't").
"""

from __future__ import annotations

import pytest

from biaswh.ingest.dialect.rules import RULES, transform

# (rule, branch, question, what the rule alone makes of it)
CASES = [
    ("no_inversion", "not a wh-question", "Did the war end?", "Did the war end?"),
    ("no_inversion", "nothing after the auxiliary", "When did?", "When did?"),
    ("no_inversion", "do-support after a one-word wh-phrase", "When did the war end?", "When the war end?"),
    ("no_inversion", "past be after a one-word wh-phrase", "Where were the kings buried?", "Where the kings buried?"),
    (
        "no_inversion",
        "past be after what + noun (a subject)",
        "What dye was known as blue?",
        "What dye was known as blue?",
    ),
    ("no_inversion", "do-support after what + noun", "What company did Seagram buy?", "What company Seagram buy?"),
    ("no_inversion", "another auxiliary is kept", "Who can see it?", "Who can see it?"),
    ("aux_be_deletion", "are before V-ing", "Which teams are playing today?", "Which teams playing today?"),
    ("aux_be_deletion", "sentence-initial is is kept", "Is it raining?", "Is it raining?"),
    ("aux_be_deletion", "no V-ing after is", "Who is the king?", "Who is the king?"),
    ("habitual_be", "adverb before is", "What often is served at dinner?", "What often be served at dinner?"),
    ("habitual_be", "no habitual adverb", "What is served at dinner?", "What is served at dinner?"),
    ("habitual_be", "sentence-initial is is kept", "Is it always open?", "Is it always open?"),
    ("habitual_be", "adverb not next to are", "Where are they typically found?", "Where are they typically found?"),
    ("copula_deletion", "are before an NP", "Where are the keys?", "Where the keys?"),
    ("copula_deletion", "is before not is kept", "Why is not the bridge open?", "Why is not the bridge open?"),
    ("copula_deletion", "sentence-final is is kept", "Where it is?", "Where it is?"),
    ("aint", "isn't", "Why isn't the bridge open?", "Why ain't the bridge open?"),
    ("aint", "aren't", "Why aren't they here?", "Why ain't they here?"),
    ("aint", "haven't", "Why haven't they left?", "Why ain't they left?"),
    ("aint", "hasn't", "Why hasn't it rained?", "Why ain't it rained?"),
    ("aint", "didn't", "Why didn't he go?", "Why ain't he go?"),
    ("aint", "is not", "Why is not the bridge open?", "Why ain't the bridge open?"),
    ("aint", "are not", "Why are not they here?", "Why ain't they here?"),
    ("aint", "has not", "Why has not it rained?", "Why ain't it rained?"),
    ("aint", "have not", "Why have not they left?", "Why ain't they left?"),
    ("aint", "initial not has no be before it", "Not now?", "Not now?"),
    ("aint", "was not is kept", "Why was not the bridge open?", "Why was not the bridge open?"),
    ("negative_concord", "after n't", "Why isn't there any water?", "Why isn't there no water?"),
    ("negative_concord", "after not", "Why is not anything open?", "Why is not nothing open?"),
    ("negative_concord", "after never", "Has he never been anywhere?", "Has he never been nowhere?"),
    (
        "negative_concord",
        "anybody, ever, either",
        "Why didn't anybody ever go either?",
        "Why didn't nobody never go neither?",
    ),
    ("negative_concord", "indefinite before the negator", "Did anyone not come?", "Did anyone not come?"),
    ("third_singular_s_absence", "does", "Where does she live?", "Where do she live?"),
    ("third_singular_s_absence", "has", "What has he done?", "What have he done?"),
    ("third_singular_s_absence", "doesn't", "Why doesn't she sing?", "Why don't she sing?"),
    ("third_singular_s_absence", "hasn't", "Why hasn't she sung?", "Why haven't she sung?"),
    ("third_singular_s_absence", "who + V-s", "Who owns the company?", "Who own the company?"),
    ("third_singular_s_absence", "who + V-ches", "Who watches the show?", "Who watch the show?"),
    ("third_singular_s_absence", "who + V-xes", "Who fixes cars?", "Who fix cars?"),
    ("third_singular_s_absence", "who not first", "Then who owns it?", "Then who owns it?"),
    ("third_singular_s_absence", "who + is", "Who is there?", "Who is there?"),
    ("third_singular_s_absence", "who + was", "Who was there?", "Who was there?"),
    (
        "zero_past_tense",
        "after a one-word wh-phrase",
        "Who overshadowed Dennis Hastert?",
        "Who overshadow Dennis Hastert?",
    ),
    ("zero_past_tense", "after which + noun", "Which team released the album?", "Which team release the album?"),
    ("zero_past_tense", "-ied -> -y", "Who carried the flag?", "Who carry the flag?"),
    ("zero_past_tense", "doubled consonant", "Who stopped the war?", "Who stop the war?"),
    ("zero_past_tense", "irregular verb", "Which team won the cup?", "Which team won the cup?"),
    ("zero_past_tense", "an auxiliary, not a verb", "Who was released?", "Who was released?"),
    ("zero_past_tense", "nothing after the wh-phrase", "Who?", "Who?"),
    ("zero_past_tense", "not a wh-question", "Dogs barked loudly.", "Dogs barked loudly."),
    ("zero_past_tense", "-eed is unsure", "Who agreed?", "Who agreed?"),
    ("g_dropping", "vowel before -ing", "Who is singing?", "Who is singin'?"),
    ("g_dropping", "thing, bring, king", "Bring the thing to the king?", "Bring the thing to the king?"),
]


@pytest.mark.parametrize(("rule", "branch", "question", "expected"), CASES, ids=[f"{c[0]}: {c[1]}" for c in CASES])
def test_branch(rule, branch, question, expected):
    variant = transform(question, (rule,))
    assert variant.text == expected
    assert variant.rules_fired == ((rule,) if expected != question else ())


def test_every_rule_has_a_firing_and_a_guarded_case():
    fired = {rule for rule, _, question, expected in CASES if question != expected}
    guarded = {rule for rule, _, question, expected in CASES if question == expected}
    assert fired == guarded == set(RULES)
