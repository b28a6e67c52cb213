"""Rule-based African American English (AAE) variants of English questions, offline.

Each rule is one documented morphosyntactic (or phonological) feature, named, switchable on
its own, and citing where it is described: the feature number and name in eWAVE (Kortmann,
Lunkenheimer & Ehret, eds., *The Electronic World Atlas of Varieties of English*, 2020;
attestation for Urban AAVE in brackets: A pervasive, B neither pervasive nor rare) or, for
the one phonological rule, Green (2002), *African American English: A Linguistic
Introduction*, ch. 4. The rules are deliberately narrow (word lists and positions, no
parser): a rule that cannot tell whether it applies does not fire, so what it changes is
what it claims. A rule returns the new words and whether it fired; :func:`transform`
applies the chosen rules in :data:`RULE_ORDER` and records which fired.

Randomness: each rule fires at every site it matches with probability ``rate`` (default 1,
deterministic); below 1 the draws come from ``random.Random(seed)``, so a variant depends
only on the seed, never on other pairs or on the order they are processed in.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass
from typing import Callable

from biaswh.ingest.dialect.word_forms import (
    AINT_FORMS,
    AUXILIARIES,
    DO_SUPPORT,
    HABITUAL_ADVERBS,
    NEGATIVE_POLARITY,
    NEGATORS,
    PAST_BE,
    PRESENT_BE,
    bare_verb,
    core,
    drop_word,
    wh_phrase_end,
    with_core,
)


@dataclass(frozen=True)
class Rule:
    """One named feature: what it does and where it is described."""

    name: str
    source: str
    description: str
    apply: Callable[[list[str], Callable[[], bool]], tuple[list[str], bool]]


def _copula_deletion(words, fire):
    # eWAVE 176-178: present-tense copula is/are deleted before an NP, AdjP or locative; never
    # sentence-initially (a yes/no question), never before -ing (that is rule 174), never "am".
    for i in range(1, len(words) - 1):
        nxt = core(words[i + 1])
        if core(words[i]) in PRESENT_BE and not nxt.endswith("ing") and nxt not in {"not", "n't"} and fire():
            return drop_word(words, i), True
    return words, False


def _aux_be_deletion(words, fire):
    # eWAVE 174: auxiliary is/are deleted before a progressive (V-ing).
    for i in range(1, len(words) - 1):
        if core(words[i]) in PRESENT_BE and core(words[i + 1]).endswith("ing") and fire():
            return drop_word(words, i), True
    return words, False


def _habitual_be(words, fire):
    # eWAVE 90: invariant "be" marks habitual aspect; only where the question says so with a
    # habitual adverb next to is/are ("What is usually served" -> "What be usually served").
    for i in range(1, len(words)):
        neighbours = {core(w) for w in words[max(0, i - 1) : i + 2]}
        if core(words[i]) in PRESENT_BE and neighbours & HABITUAL_ADVERBS and fire():
            return words[:i] + [with_core(words[i], "be")] + words[i + 1 :], True
    return words, False


def _negative_concord(words, fire):
    # eWAVE 154: after a negator, indefinites take negative form ("didn't ... any" -> "no").
    out, fired, negated = list(words), False, False
    for i, word in enumerate(words):
        w = core(word)
        if w in NEGATORS or w.endswith("n't"):
            negated = True
        elif negated and w in NEGATIVE_POLARITY and fire():
            out[i], fired = with_core(word, NEGATIVE_POLARITY[w]), True
    return out, fired


def _aint(words, fire):
    # eWAVE 155-157: ain't as the negated form of be and have, and as a negator before a main verb.
    out, fired = list(words), False
    for i, word in enumerate(words):
        w = core(word)
        if (
            w in AINT_FORMS or (w == "not" and i > 0 and core(words[i - 1]) in {"is", "are", "has", "have"})
        ) and fire():
            if w == "not":
                out[i - 1], out[i] = with_core(words[i - 1], "ain't"), None
            else:
                out[i] = with_core(word, "ain't")
            fired = True
    return [w for w in out if w is not None], fired


def _third_singular_s_absence(words, fire):
    # eWAVE 170 (with 158, invariant don't): no -s on a present verb with a third-singular subject.
    # Sites: the auxiliaries does/has/doesn't/hasn't, and the verb right after a subject "who".
    swaps = {"does": "do", "has": "have", "doesn't": "don't", "hasn't": "haven't"}
    out, fired = list(words), False
    for i, word in enumerate(words):
        w = core(word)
        if w in swaps and fire():
            out[i], fired = with_core(word, swaps[w]), True
        elif (
            i == 1
            and core(words[0]) == "who"
            and re.fullmatch(r"[a-z]{2,}[^s']s", w)
            and w not in AUXILIARIES | {"was", "this", "has"}
            and fire()
        ):
            out[i], fired = with_core(word, w[:-2] if w.endswith(("ches", "shes", "sses", "xes")) else w[:-1]), True
    return out, fired


def _zero_past_tense(words, fire):
    # eWAVE 132: zero past tense of regular verbs, on the verb right after a subject wh-phrase
    # ("Who overshadowed ..." -> "Who overshadow ...", "Which team won" is irregular: untouched).
    end = wh_phrase_end(words)
    if end is None or end >= len(words):
        return words, False
    bare = bare_verb(core(words[end]))
    if bare is not None and core(words[end - 1]) not in AUXILIARIES and fire():
        return words[:end] + [with_core(words[end], bare)] + words[end + 1 :], True
    return words, False


def _no_inversion(words, fire):
    # eWAVE 228: no inversion / no auxiliary in wh-questions: the do-support or past be after
    # the wh-phrase is left out ("How deep was the focus" -> "How deep the focus",
    # "When did the war end" -> "When the war end").
    end = wh_phrase_end(words)
    if end is None or end >= len(words) - 1:
        return words, False
    dropped = DO_SUPPORT | PAST_BE
    if end == 2 and core(words[0]) in {"what", "which", "whose"}:
        dropped = DO_SUPPORT  # "What dye was known ..." asks about the subject: nothing is inverted
    if core(words[end]) in dropped and fire():
        return drop_word(words, end), True
    return words, False


def _g_dropping(words, fire):
    # Green (2002, ch. 4): -ing pronounced [in]; spelled -in'. Only where a vowel precedes
    # "ing" (running, during), never in thing, king, bring.
    out, fired = list(words), False
    for i, word in enumerate(words):
        w = core(word)
        if len(w) > 5 and w.endswith("ing") and re.search(r"[aeiouy]", w[:-3]) and fire():
            out[i], fired = with_core(word, w[:-3] + "in'"), True
    return out, fired


RULES: dict[str, Rule] = {
    rule.name: rule
    for rule in (
        Rule(
            "no_inversion",
            "eWAVE 228 No inversion/no auxiliaries in wh-questions [B]",
            "drop did/does/do/was/were after the wh-phrase",
            _no_inversion,
        ),
        Rule(
            "aux_be_deletion",
            "eWAVE 174 Deletion of auxiliary be: before progressive [A]",
            "drop is/are before V-ing",
            _aux_be_deletion,
        ),
        Rule(
            "habitual_be",
            "eWAVE 90 Invariant be as habitual marker [A]",
            "is/are next to a habitual adverb -> be",
            _habitual_be,
        ),
        Rule(
            "copula_deletion",
            "eWAVE 176-178 Deletion of copula be before NPs, AdjPs, locatives [A]",
            "drop present is/are (not initial, not before -ing)",
            _copula_deletion,
        ),
        Rule(
            "aint",
            "eWAVE 155-157 Ain't as negated be, negated have, generic negator [A]",
            "isn't/aren't/haven't/hasn't/didn't/is not -> ain't",
            _aint,
        ),
        Rule(
            "negative_concord",
            "eWAVE 154 Multiple negation / negative concord [A]",
            "any/anything/anyone/ever/either after a negator -> no/nothing/nobody/never/neither",
            _negative_concord,
        ),
        Rule(
            "third_singular_s_absence",
            "eWAVE 170 Invariant present tense: zero 3rd person singular -s [A] (with 158 invariant don't)",
            "does/has/doesn't -> do/have/don't; who + V-s -> who + V",
            _third_singular_s_absence,
        ),
        Rule(
            "zero_past_tense",
            "eWAVE 132 Zero past tense forms of regular verbs [B]",
            "regular V-ed right after the wh-phrase -> bare V",
            _zero_past_tense,
        ),
        Rule(
            "g_dropping",
            "Green (2002) ch. 4: -ing as [in] (phonological; not an eWAVE morphosyntax feature)",
            "-ing -> -in'",
            _g_dropping,
        ),
    )
}
RULE_ORDER = tuple(RULES)


@dataclass(frozen=True)
class Variant:
    """One transformed question and the rules that changed it, in application order."""

    text: str
    rules_fired: tuple[str, ...]


def transform(
    question: str, rules: tuple[str, ...] | list[str] = RULE_ORDER, *, seed: int = 0, rate: float = 1.0
) -> Variant:
    """Apply ``rules`` (names from :data:`RULES`, run in :data:`RULE_ORDER`) to one question.

    Deterministic given ``seed``: with ``rate`` below 1 each matching site fires with that
    probability, drawn from ``random.Random(seed)``.
    """
    unknown = [r for r in rules if r not in RULES]
    if unknown:
        from biaswh.warehouse.errors import UserError

        raise UserError(f"unknown dialect rule(s) {', '.join(unknown)}; known: {', '.join(RULE_ORDER)}")
    draw = random.Random(seed)
    fire = (lambda: True) if rate >= 1 else (lambda: draw.random() < rate)
    words, fired = question.split(), []
    for name in RULE_ORDER:
        if name in rules:
            words, changed = RULES[name].apply(words, fire)
            if changed:
                fired.append(name)
    return Variant(" ".join(words), tuple(fired))
