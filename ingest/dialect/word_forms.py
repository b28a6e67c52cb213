"""Word-level pieces the dialect rules share: the word lists they match and the helpers that
read a word's core (no punctuation, lowercased) and write a new core back in its place."""

from __future__ import annotations

import re

WH_WORDS = {"who", "what", "which", "when", "where", "why", "how", "whom", "whose"}
DO_SUPPORT = {"did", "does", "do"}
PAST_BE = {"was", "were"}
PRESENT_BE = {"is", "are"}
AUXILIARIES = DO_SUPPORT | PAST_BE | PRESENT_BE | {"has", "have", "had", "can", "could", "will", "would", "should"}
NEGATIVE_POLARITY = {
    "any": "no",
    "anything": "nothing",
    "anyone": "nobody",
    "anybody": "nobody",
    "anywhere": "nowhere",
    "ever": "never",
    "either": "neither",
}
NEGATORS = {"not", "never", "no", "nothing", "nobody", "none"}
AINT_FORMS = {"isn't", "aren't", "haven't", "hasn't", "didn't"}
HABITUAL_ADVERBS = {"usually", "often", "always", "typically", "generally", "normally", "commonly", "regularly"}
# -ed verbs whose bare form is not the -ed word minus "d"/"ed" by the simple spelling rules below.
_E_STEMS = re.compile(r"(?:at|it|iz|is|ir|iv|ov|ur|uc|ag|ng|rg|dg|ps|ns|rc|ud|ut|ac|ol|id|ib|ab|ub|ag|om|in|uir|ar)$")
_WORD = re.compile(r"^(?P<lead>\W*)(?P<core>.*?)(?P<trail>[^\w']*)$", re.DOTALL)


def core(word: str) -> str:
    """The word without surrounding punctuation, lowercased, with curly apostrophes made straight."""
    return _WORD.match(word)["core"].lower().replace("’", "'")


def with_core(word: str, new: str) -> str:
    """``word`` with its core replaced by ``new``, keeping punctuation and an initial capital."""
    parts = _WORD.match(word)
    if parts["core"][:1].isupper():
        new = new[:1].upper() + new[1:]
    return parts["lead"] + new + parts["trail"]


def drop_word(words: list[str], i: int) -> list[str]:
    """Remove word ``i``, moving its trailing punctuation onto the previous word."""
    trail = _WORD.match(words[i])["trail"]
    out = words[:i] + words[i + 1 :]
    if trail and i > 0:
        out[i - 1] += trail
    return out


def wh_phrase_end(words: list[str]) -> int | None:
    """Index just after the opening wh-phrase ("How deep", "Which team", "What"), else None."""
    if not words or core(words[0]) not in WH_WORDS:
        return None
    if core(words[0]) in {"how", "which", "what", "whose"} and len(words) > 2 and core(words[1]) not in AUXILIARIES:
        return 2
    return 1


def bare_verb(word: str) -> str | None:
    """The bare form of a regular -ed verb by spelling rules, or None when unsure."""
    if not re.fullmatch(r"[a-z]{3,}ed", word) or word.endswith("eed"):
        return None
    stem = word[:-2]
    if stem.endswith("i"):
        return stem[:-1] + "y"
    if len(stem) > 2 and stem[-1] == stem[-2] and stem[-1] not in "lsz":
        return stem[:-1]
    needs_e = _E_STEMS.search(stem) or re.search(r"(?<![aeiou])[aeiou]k$", stem)
    needs_e = needs_e or (re.search(r"[aeiou]s$", stem) and not stem.endswith(("cus", "bias")))
    return stem + "e" if needs_e else stem
