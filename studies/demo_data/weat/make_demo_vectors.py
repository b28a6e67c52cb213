"""Regenerate demo_vectors.npz: SYNTHETIC word vectors for the WEAT demo (not research data).

Each word gets a seeded random 32-d Gaussian vector plus a planted component along one of two
directions, so the demo's tests have a known answer: pleasant vs unpleasant words (and,
weaker, flowers and instruments vs insects and weapons) along ``valence``; male vs female
terms (and, weaker, math and science vs arts) along ``gender``. Filler words carry no
planted component. Most names of WEAT 6 are left out on purpose, so that test must report
"insufficient coverage". "Einstein" and "NASA" are stored as "einstein" and "Nasa" to show
the lower-case and case-folded matches. Run: ``python make_demo_vectors.py`` (deterministic).

It also writes ``demo_vectors_v2.npz``, the audit demo's "version 2" of these vectors with one
**planted difference** (studies/audit_demo.toml compares the two versions): every vector is
version 1's except the 16 target words of the user test ``filler_control``, which get a valence
component, household objects +VERSION_2_PLANT and outdoor objects -VERSION_2_PLANT. Those words
are in no other test, so version 2 is more biased on that test (the control) and identical on
every other: the audit's comparison must find "worse" there and no evidence of a difference
elsewhere (tests/biaswh/test_audit_comparisons.py).
"""

from pathlib import Path

import numpy as np
import yaml

SEED = 20261122
DIM = 32
HERE = Path(__file__).resolve().parent
DEFINITIONS = HERE.parents[2] / "ingest" / "weat" / "data" / "caliskan2017.yaml"
# (test, role) -> (direction, strength); a word in several sets keeps the first assignment.
PLANTED = {
    ("weat1", "attribute_a"): ("valence", 1.0),
    ("weat1", "attribute_b"): ("valence", -1.0),
    ("weat1", "target_x"): ("valence", 0.6),
    ("weat1", "target_y"): ("valence", -0.6),
    ("weat2", "target_x"): ("valence", 0.5),
    ("weat2", "target_y"): ("valence", -0.5),
    ("weat7", "attribute_a"): ("gender", 1.0),
    ("weat7", "attribute_b"): ("gender", -1.0),
    ("weat8", "attribute_a"): ("gender", 1.0),
    ("weat8", "attribute_b"): ("gender", -1.0),
    ("weat7", "target_x"): ("gender", 0.5),
    ("weat7", "target_y"): ("gender", -0.5),
    ("weat8", "target_x"): ("gender", 0.5),
    ("weat8", "target_y"): ("gender", -0.5),
    ("weat5", "attribute_a"): ("valence", 1.0),
    ("weat5", "attribute_b"): ("valence", -1.0),
    ("weat6", "attribute_a"): ("none", 0.0),
    ("weat6", "attribute_b"): ("none", 0.0),
}
SPELLING = {"Einstein": "einstein", "NASA": "Nasa"}
FILLER = [
    "table",
    "window",
    "river",
    "pencil",
    "cloud",
    "stone",
    "lamp",
    "bridge",
    "paper",
    "garden",
    "bottle",
    "carpet",
    "ladder",
    "mirror",
    "basket",
    "candle",
]
WEAT6_NAMES_KEPT = ["John", "Amy"]  # the rest of WEAT 6's names are missing on purpose
USER_TESTS = HERE / "demo_user_tests.yaml"
VERSION_2_PLANT = 1.0  # the planted valence of filler_control's target words in version 2 (x +, y -)


def main() -> None:
    tests = yaml.safe_load(DEFINITIONS.read_text(encoding="utf-8"))["tests"]
    planted: dict[str, tuple[str, float]] = {}
    for (test, role), plant in PLANTED.items():
        for word in tests[test][role]["words"]:
            planted.setdefault(SPELLING.get(word, word), plant)
    for word in FILLER + WEAT6_NAMES_KEPT:
        planted.setdefault(word, ("none", 0.0))
    rng = np.random.default_rng(SEED)
    directions = {"valence": np.eye(DIM)[0] * 3.0, "gender": np.eye(DIM)[1] * 3.0, "none": np.zeros(DIM)}
    words = sorted(planted)
    vectors = np.stack(
        [rng.normal(size=DIM) + strength * directions[direction] for direction, strength in (planted[w] for w in words)]
    ).astype(np.float32)
    np.savez(HERE / "demo_vectors.npz", words=np.asarray(words), vectors=vectors)
    print(f"wrote {len(words)} synthetic vectors of {DIM} dimensions")
    write_version_2(words, vectors, directions["valence"])


def write_version_2(words: list[str], vectors: np.ndarray, valence: np.ndarray) -> None:
    """demo_vectors_v2.npz: version 1 with filler_control's target words moved along valence."""
    control = yaml.safe_load(USER_TESTS.read_text(encoding="utf-8"))["tests"]["filler_control"]
    shifted = vectors.copy()
    for role, sign in (("target_x", 1.0), ("target_y", -1.0)):
        for word in control[role]["words"]:
            shifted[words.index(word)] += (sign * VERSION_2_PLANT * valence).astype(np.float32)
    np.savez(HERE / "demo_vectors_v2.npz", words=np.asarray(words), vectors=shifted)
    print("wrote version 2: filler_control's 16 target words moved along valence, every other vector kept")


if __name__ == "__main__":
    main()
