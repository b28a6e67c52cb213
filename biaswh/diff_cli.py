"""``biaswh diff RUN_A RUN_B``: what differs between two runs, checked on their stored rows.

One line per difference group (``study``, ``config``, ``inputs``, ``code``, then each result
table whose rows differ: :func:`biaswh.analysis.common.run_comparison.compare_runs`), or ``identical``.
It reads through the sandboxed read-only connection, as ``biaswh sql`` does.
"""

from __future__ import annotations

from biaswh.command_registry import register_command
from biaswh.warehouse.errors import UserError


def _arguments(diff) -> None:
    diff.add_argument("run_a", metavar="RUN_A", help="a run id, or a unique start of one (as pages show 12 characters)")
    diff.add_argument("run_b", metavar="RUN_B", help="the run to compare it with")


def _resolve(con, given: str) -> str:
    """The run id ``given`` names (whole, or a unique start of it); a UserError otherwise."""
    found = [
        run_id
        for (run_id,) in con.execute(
            "select run_id from marts.dim_runs where starts_with(run_id, ?) order by run_id", [given]
        ).fetchall()
    ]
    if given in found:
        return given
    if len(found) != 1:
        what = "no run" if not found else f"{len(found)} runs ({', '.join(r[:12] for r in found[:5])})"
        raise UserError(f"diff: {given!r} names {what} in marts.dim_runs (see `biaswh sql 'from dim_runs'`)")
    return found[0]


def diff_lines(run_a: str, run_b: str) -> list[str]:
    """The lines ``biaswh diff`` prints for two run ids (or unique starts of them)."""
    from biaswh.adhoc_sql import SEARCH_PATH
    from biaswh.analysis.common.run_comparison import compare_runs
    from biaswh.dashboards.common.queries import relation_exists
    from biaswh.warehouse.database.sandbox import open_sandbox

    with open_sandbox(SEARCH_PATH) as con:
        if not relation_exists(con, "marts", "dim_runs"):
            raise UserError("diff: this warehouse has no marts.dim_runs yet (run `biaswh build` or a study first)")
        a, b = _resolve(con, run_a), _resolve(con, run_b)
        return [difference.line() for difference in compare_runs(con, a, b)] or ["identical"]


@register_command(
    "diff",
    summary="what differs between two runs (config, inputs, code, stored results), or 'identical'",
    arguments=_arguments,
    order=90,
)
def diff(args) -> None:
    """``biaswh diff RUN_A RUN_B``: print :func:`diff_lines`."""
    print("\n".join(diff_lines(args.run_a, args.run_b)))
