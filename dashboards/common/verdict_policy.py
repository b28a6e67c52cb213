"""What a card, legend or sentence says about the verdict policy a run was judged by.

Every verdict table stores the alpha it was judged at (``alpha``, :mod:`biaswh.stats.verdicts`); runs
analysed before that column existed fall back to the ``[verdicts]`` table their study config
recorded (``dim_runs.parameters``), else the policy's default. Pages say the family, its size,
the adjustment and alpha in one phrase: "Holm-adjusted within 10 tests, α = 0.05".
"""

from __future__ import annotations

import json

from biaswh.dashboards.common.queries import relation_exists
from biaswh.stats.multiple_comparisons import ADJUSTMENT_NAMES, VerdictPolicy, verdict_policy
from biaswh.stats.verdicts import alpha_text
from biaswh.warehouse.errors import UserError


def _json(value) -> dict:
    if not value:
        return {}
    return json.loads(value) if isinstance(value, str) else dict(value)


def run_parameters(con, run_id: str) -> dict:
    """Run ``run_id``'s recorded run parameters ({} when none or before ``dim_runs`` is built)."""
    if not relation_exists(con, "marts", "dim_runs"):
        return {}
    row = con.execute("select run_parameters from marts.dim_runs where run_id = ?", [run_id]).fetchone()
    return _json(row[0] if row else None)


def recorded_policy(con, run_id: str, *, default_alpha: float | None = None) -> VerdictPolicy:
    """The verdict policy run ``run_id``'s study config declared (its recorded ``[verdicts]``; its
    ``verdicts_alpha`` run parameter, or an older run's ``recsys_alpha`` read as it, when it recorded no table)."""
    settings: dict = {}
    if relation_exists(con, "marts", "dim_runs"):
        row = con.execute("select parameters from marts.dim_runs where run_id = ?", [run_id]).fetchone()
        settings = _json(row[0] if row else None).get("settings") or {}
    recorded = run_parameters(con, run_id).get("verdicts_alpha")
    default = VerdictPolicy().alpha if default_alpha is None else default_alpha
    if recorded is not None and "alpha" not in (settings.get("verdicts") or {}):
        default = float(recorded)
    try:
        return verdict_policy(settings, default_alpha=default)
    except UserError:  # a config this code no longer accepts: the default policy, as the run had no other
        return VerdictPolicy()


def alpha_column(con, table: str, alias: str = "") -> str:
    """``<alias>.alpha`` when ``table`` (``schema.name``) has the column, else ``null`` (a table written
    before verdict rows stored their alpha; :func:`run_alpha` then reads the run's config)."""
    schema, name = table.split(".")
    found = con.execute(
        "select count(*) from duckdb_columns() where schema_name = ? and table_name = ? and column_name = 'alpha'",
        [schema, name],
    ).fetchone()[0]
    return f"{alias + '.' if alias else ''}alpha" if found else "null"


def run_alpha(con, run_id: str, rows: list[dict]) -> float:
    """The alpha ``rows`` (verdict rows of one run) were judged at."""
    stored = [r["alpha"] for r in rows if r.get("alpha") is not None]
    return float(stored[0]) if stored else recorded_policy(con, run_id).alpha


def run_adjustment(con, run_id: str, rows: list[dict]) -> str:
    """The adjustment ``rows`` (verdict rows of one run) were judged by, as a page says it; with no
    row to say it (a run without a test), the adjustment the run's config declared."""
    stored = next((r["adjustment"] for r in rows if r.get("adjustment")), None)
    return adjustment_name(stored) if stored else recorded_policy(con, run_id).name


def adjustment_name(method: str | None) -> str:
    """ "Holm" or "Benjamini-Hochberg", from either spelling a table stores."""
    if not method:
        return "Holm"
    return ADJUSTMENT_NAMES.get(method, {"holm": "Holm", "bh": "Benjamini-Hochberg"}.get(method, method))


def policy_phrase(adjustment: str | None, family_size: int, alpha: float, *, family: str = "") -> str:
    """E.g. "Holm-adjusted within 10 tests, α = 0.05" (``family`` named after "within" when given)."""
    tests = f"{family_size:,} test" + ("" if family_size == 1 else "s")
    within = f"{family} ({tests})" if family else tests
    return f"{adjustment_name(adjustment)}-adjusted within {within}, {alpha_text(alpha)}"
