"""File names made from names users choose (vignette sets, rule sets, simulations)."""

from __future__ import annotations

import hashlib
import re

_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]+")
MAX_STEM_LENGTH = 80


def safe_file_stem(name: str) -> str:
    """A file-name stem for ``name`` that stays inside the folder it is joined to.

    Letters, digits, ``_``, ``-`` and inner ``.`` are kept; every other run of characters
    (``/``, ``\\``, spaces, control characters) becomes ``_``, and leading dots become ``_``, so
    no stem is ``..``, hidden, absolute or empty. A name that needed any change (or is longer
    than 80 characters) is cut to 80 and gets ``-`` and the first 8 hex digits of its sha256,
    so two names that clean to the same text (``a/b`` and ``a_b``) never share a file. A safe
    name is returned as is.
    """
    cleaned = _UNSAFE.sub("_", name)
    cleaned = re.sub(r"^\.+", lambda dots: "_" * len(dots.group()), cleaned) or "_"
    if cleaned == name and len(name) <= MAX_STEM_LENGTH:
        return name
    digest = hashlib.sha256(name.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    return f"{cleaned[:MAX_STEM_LENGTH]}-{digest}"
