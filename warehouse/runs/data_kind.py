"""What kind of data a study run stands on: ``real``, ``synthetic`` or ``demo`` (a study config's ``data``).

A study config states it (``[study] data = "demo"``, checked by :mod:`biaswh.warehouse.settings.study_schema`)
and its runs store it in their parameters (``raw.runs.parameters ->> 'data'``). A run recorded
before the key existed is judged here, and only here, from what it did store: a study or config
named ``demo...``, or a description saying "demo", is demo data; anything else is taken as real.
"""

from __future__ import annotations

import json
from pathlib import PurePath

# The kinds, in the order the site lists studies: real findings first.
DATA_KINDS = ("real", "synthetic", "demo")


def data_kind_of(parameters: dict | str | None, name: str | None = None) -> str:
    """The data kind of a run from its stored parameters (a dict or their JSON) and its study name.

    The stated ``data`` wins; a run without one is inferred (the module docstring says how).
    """
    if isinstance(parameters, str):
        try:
            parameters = json.loads(parameters)
        except ValueError:  # an early run stored free text
            parameters = {}
    parameters = parameters if isinstance(parameters, dict) else {}
    stated = parameters.get("data")
    if stated in DATA_KINDS:
        return stated
    config = PurePath(str(parameters.get("config") or "")).name
    names = (name or "", str(parameters.get("name") or ""), config)
    description = str(parameters.get("description") or "").lower()
    if any(n.lower().startswith("demo") for n in names) or "demo" in description:
        return "demo"
    return "real"
