"""Every random step's seed is derived from the study's one seed and the step's labels (the one copy)."""

from __future__ import annotations

import hashlib


def derive_seed(study_seed: int, *labels: object) -> int:
    """A stable 63-bit seed for (study seed, labels): same inputs, same seed, on any machine."""
    text = "\x1f".join([str(study_seed), *map(str, labels)])
    return int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:8], "big") >> 1
