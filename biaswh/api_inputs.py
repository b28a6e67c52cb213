"""The Python API's arguments, checked as the CLI checks the same options, before any work.

``wh.run(limit=0)`` ran (``biaswh run --limit 0`` is refused by argparse); ``wh.charts(None)``
ended in a traceback. Every argument of :mod:`biaswh.api` now goes through one of these
checks, which raise :class:`BadInput`: a ``ValueError`` (what Python code expects of a bad
argument) that is also a :class:`~biaswh.warehouse.errors.UserError` (so the CLI's one-line handling,
and code that catches UserError, see it too). The message names the parameter.
"""

from __future__ import annotations

import os

from biaswh.warehouse.errors import UserError
from biaswh.warehouse.settings.config_schema import Number


class BadInput(UserError, ValueError):
    """An argument of a :mod:`biaswh.api` call that is of the wrong type or out of range."""


def text(call: str, name: str, value, *, optional: bool = False) -> str | None:
    """``value`` when it is a non-empty string (or None, when ``optional``)."""
    if value is None and optional:
        return None
    if not isinstance(value, str) or not value.strip():
        wanted = "a non-empty string" + (" or None" if optional else "")
        raise BadInput(f"{call}: {name} must be {wanted}, got {value!r}")
    return value


def number(call: str, name: str, value, shape: Number):
    """``value`` when it is None or fits ``shape`` (the rule of the CLI option of the same name)."""
    if value is not None and shape.problem(value):
        raise BadInput(f"{call}: {name} {shape.problem(value)}")
    return value


def choice(call: str, name: str, value, choices: tuple):
    """``value`` when it is None or one of ``choices``."""
    if value is not None and value not in choices:
        raise BadInput(f"{call}: {name} must be one of {', '.join(map(repr, choices))} or None, got {value!r}")
    return value


def path(call: str, name: str, value, *, optional: bool = False):
    """``value`` when it is a non-empty path (a string or ``os.PathLike``), or None when ``optional``."""
    if value is None and optional:
        return None
    if not isinstance(value, (str, os.PathLike)) or not os.fspath(value):
        raise BadInput(f"{call}: {name} must be a path (str or os.PathLike), got {value!r}")
    return value


def flag(call: str, name: str, value) -> bool:
    """``value`` when it is True or False (``read_only="no"`` would be true)."""
    if not isinstance(value, bool):
        raise BadInput(f"{call}: {name} must be True or False, got {value!r}")
    return value


def ray_address(call: str, value) -> str | None:
    """``value`` when it is None or a Ray address of a form Ray accepts (``--ray-address``'s check)."""
    from biaswh.compute.common.engine import ray_address_problem

    if value is None:
        return None
    text(call, "ray_address", value)
    problem = ray_address_problem(value)
    if problem:
        raise BadInput(f"{call}: ray_address {problem}")
    return value
