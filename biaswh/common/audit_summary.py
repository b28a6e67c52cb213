"""An audit run in one sentence: what it measured, how many of its tested findings its one policy
calls significant, and what its comparisons of versions and rivals found.

``biaswh audit`` prints it first, and the README's study table shows the recorded audits' with
the studies' headline findings (``docs/study_facts.py``).
"""

from __future__ import annotations

import duckdb


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def _comparisons(rows: list[tuple]) -> str:
    """The pairs compared: those with a better or worse finding named, the rest counted."""
    pairs: dict[tuple[str, str], dict[str, int]] = {}
    for candidate, baseline, verdict, n in rows:
        pairs.setdefault((candidate, baseline), {})[verdict] = n
    named, quiet = [], 0
    for (candidate, baseline), verdicts in pairs.items():
        compared = sum(n for verdict, n in verdicts.items() if verdict != "not compared")
        moved = [f"{verdict} in {verdicts[verdict]}" for verdict in ("worse", "better") if verdicts.get(verdict)]
        if moved:
            named.append(f"{candidate} against {baseline} is {' and '.join(moved)} of {compared} compared findings")
        else:
            quiet += 1
    if not pairs:
        return ""
    if not named:
        return f"; no evidence of a difference in any of the {_plural(len(pairs), 'pair')} compared"
    rest = f", no evidence of a difference in the other {_plural(quiet, 'pair')}" if quiet else ""
    return "; " + "; ".join(named) + rest


def audit_headline(con: duckdb.DuckDBPyConnection, audit_run: str) -> str:
    """The headline of the audit run ``audit_run`` (its rows in ``raw.audit_subjects`` and the
    ``analysis.audit_*`` tables)."""
    n_subjects, n_runs, n_not_run = con.execute(
        "select count(distinct subject_id) filter (where status = 'measured'),"
        " count(distinct run_id) filter (where status = 'measured'),"
        " count(*) filter (where status = 'not run') from raw.audit_subjects where audit_run_id = ?",
        [audit_run],
    ).fetchone()
    n_tested, n_significant, policy = con.execute(
        "select count(*), count(*) filter (where is_significant), any_value(policy)"
        " from analysis.audit_findings where run_id = ?",
        [audit_run],
    ).fetchone()
    compared = con.execute(
        "select candidate_label, baseline_label, verdict, count(*) from analysis.audit_comparisons"
        " where run_id = ? group by all order by all",
        [audit_run],
    ).fetchall()
    not_run = f" ({n_not_run} subject-study pairs not run: see each profile)" if n_not_run else ""
    measured = f"{_plural(n_subjects, 'subject')} measured by {_plural(n_runs, 'study run')}{not_run}"
    if not n_subjects:  # every pair not run (or not applying): nothing was measured
        measured = f"no subject measured{not_run}"
    if not n_tested:
        return f"{measured}: no tested finding{_comparisons(compared)}."
    significant = f"{n_significant} of {_plural(n_tested, 'tested finding')} significant"
    return f"{measured}: {significant}{_comparisons(compared)} ({policy})."
