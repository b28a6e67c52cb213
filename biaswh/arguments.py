"""argparse types for the CLI's numeric options, with the ranges the study schema uses.

``type=number(TIMEOUT_SECONDS)`` refuses ``--timeout -1``, ``nan`` or ``inf`` while the arguments are
parsed: argparse prints one line (``argument --timeout: must be a number in (0, 86400], got '-1'``)
and the CLI exits 2 before anything is opened or sent.
"""

from __future__ import annotations

import argparse

from warehouse.config_schema import Number

# The most tokens an answer may ask for: beyond any served model's context.
MAX_TOKENS = Number(integer=True, minimum=1, maximum=1_000_000)
# A reply cap: at least a kilobyte (an answer fits), at most a gigabyte.
MAX_REPLY_BYTES = Number(integer=True, minimum=1024, maximum=1_000_000_000)


def number(shape: Number):
    """An argparse ``type`` that parses an integer or a number and refuses it outside ``shape``."""

    def parse(text: str):
        try:
            value = int(text) if shape.integer else float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"must be {shape.describe()}, got {text!r}") from None
        if shape.problem(value):
            raise argparse.ArgumentTypeError(f"must be {shape.describe()}, got {text!r}")
        return value

    parse.__name__ = shape.describe()  # what argparse names in its own messages
    return parse
