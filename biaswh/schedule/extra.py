"""Whether the ``dagster`` extra is installed here: the one-line refusal when it is not."""

from __future__ import annotations

import importlib.util

# The modules the Dagster definitions import, and the package each comes from.
_DAGSTER_NEEDS = {"dagster": "dagster", "dagster_dbt": "dagster-dbt"}


def missing_dagster_extra() -> str | None:
    """What the Dagster definitions lack here, as one line with the install hint, or None."""
    missing = [package for module, package in _DAGSTER_NEEDS.items() if importlib.util.find_spec(module) is None]
    if not missing:
        return None
    lacking = ", ".join(missing)
    return f"Dagster needs the dagster extra ({lacking} missing): make dagster (requirements-dagster.lock)"
