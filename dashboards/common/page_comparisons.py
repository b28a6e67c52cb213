"""Versions and rivals: an audit run's comparisons of two subjects, finding by finding (``comparisons.html``).

Each comparison (a candidate against its baseline: two versions of one subject, or two rivals
an audit declared) is one section: how many findings came out better, worse or with no evidence
of a difference under the audit's policy, then one line per finding with both subjects' mean
over the units they share, the difference (candidate minus baseline) with its interval, the
paired test's p, the adjusted p and the verdict. It is drawn per audit run, so the audit's run
page and its study page show it, and ``biaswh export AUDIT`` writes its tables. Each subject's
profile links here (:func:`comparisons_of`). It reads ``analysis.audit_comparisons``
(biaswh/common/audit_run.py).
"""

from __future__ import annotations

import duckdb

from biaswh.dashboards.common.addresses import run_file
from biaswh.dashboards.common.format import interval, number
from biaswh.dashboards.common.html import table, text
from biaswh.dashboards.common.queries import relation_exists
from biaswh.dashboards.common.runs import RunsIn
from biaswh.dashboards.common.site import register_page

RUNS = RunsIn("analysis.audit_comparisons")
# What a table's download (and `biaswh export`) holds per finding.
STORED = (
    "baseline_label", "candidate_label", "study_type", "dimension", "finding", "value_name", "n_units", "n_nonzero",
    "baseline_mean", "candidate_mean", "difference", "ci_low", "ci_high", "ci_method", "test", "p_value", "p_adjusted",
    "verdict", "note", "policy", "baseline_run_id", "candidate_run_id",
)  # fmt: skip
_ORDER = "baseline_label, candidate_label, study_type, dimension, finding"
LEGEND = (
    "<b>better</b>: the paired difference is significant under the audit's policy and the candidate's mean"
    " lies nearer 0 (no bias) than the baseline's; <b>worse</b>: significant and farther from 0;"
    " <b>no evidence of a difference</b>: not significant (or fewer than 6 paired units); <b>not compared</b>:"
    " the finding has no units both subjects were measured on."
)


def _rows(con: duckdb.DuckDBPyConnection, sql: str, parameters=()) -> list[dict]:
    cursor = con.execute(sql, list(parameters))
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, row)) for row in cursor.fetchall()]


def comparison_anchor(baseline_subject_id: str, candidate_subject_id: str) -> str:
    """The id of one comparison's section on the page (a profile links to it)."""
    return f"compare-{baseline_subject_id}-{candidate_subject_id}"


def _counts(findings: list[dict]) -> str:
    words = ("better", "worse", "no evidence of a difference", "not compared")
    parts = [f"{word} in {sum(f['verdict'] == word for f in findings)}" for word in words]
    other = sum(f["verdict"] not in words for f in findings)
    return ", ".join(parts + ([f"different, equally far from no bias, in {other}"] if other else []))


def _section(findings: list[dict]) -> str:
    first = findings[0]
    heading = (
        f'<h2 id="{text(comparison_anchor(first["baseline_subject_id"], first["candidate_subject_id"]))}">'
        f"{text(first['candidate_label'])} against {text(first['baseline_label'])}</h2>"
    )
    summary = (
        f'<p class="note">{text(first["relation"])}: {text(_counts(findings))} of {len(findings)} findings.'
        f" Difference = {text(first['candidate_label'])} minus {text(first['baseline_label'])}, over the units"
        f" both were measured on; {text(first['policy'])}.</p>"
    )
    lines = [
        [
            f["study_type"],
            f'{text(f["dimension"])}<br><span class="note">{text(f["finding"])}'
            + (f"; unit value: {text(f['value_name'])}" if f["value_name"] else "")
            + "</span>",
            f["n_units"],
            f["baseline_mean"],
            f["candidate_mean"],
            number(f["difference"]) if f["difference"] is not None else "not compared",
            interval(f["ci_low"], f["ci_high"], like=f["difference"]),
            f["p_value"],
            f["p_adjusted"],
            f["verdict"] + (f" ({f['note']})" if f["note"] else ""),
        ]
        for f in findings
    ]
    columns = ["study type", "dimension", "units", "baseline mean", "candidate mean", "difference",
               "95% interval", "p_value", "p_adjusted", "verdict"]  # fmt: skip
    stored = [{key: f[key] for key in STORED} for f in findings]
    return heading + summary + table(columns, lines, data=stored, raw_columns=frozenset({"dimension"}))


@register_page("comparisons.html", "Versions and rivals", runs=RUNS, studies=("studies/audit_demo.toml",))
def comparisons_page(con: duckdb.DuckDBPyConnection, run_id: str) -> str:
    """One audit run's comparisons, one section per pair of subjects."""
    findings = _rows(con, f"select * from analysis.audit_comparisons where run_id = ? order by {_ORDER}", [run_id])
    grouped: dict[tuple[str, str], list[dict]] = {}
    for finding in findings:
        grouped.setdefault((finding["baseline_subject_id"], finding["candidate_subject_id"]), []).append(finding)
    intro = (
        '<p class="note">Two versions of a subject, or two rivals of one kind, compared finding by finding on the'
        " units both were measured on (query pairs, target words, counterfactual pairs): the mean of the per-unit"
        f" differences, its paired sign-flip test and its BCa interval. {LEGEND}</p>"
    )
    if not grouped:
        return intro + '<p class="note">This audit compared no subjects.</p>'
    return intro + "".join(_section(group) for group in grouped.values())


def comparisons_of(con: duckdb.DuckDBPyConnection, subject_id: str) -> list[list]:
    """A profile's "Versions and rivals" lines: each latest comparison the subject is in, linked to its section."""
    if not (relation_exists(con, "analysis", "audit_comparisons") and relation_exists(con, "marts", "dim_runs")):
        return []  # no comparison, or no build yet to say which runs succeeded
    rows = _rows(
        con,
        "with latest as (select c.run_id, c.baseline_subject_id, c.candidate_subject_id, c.baseline_label,"
        " c.candidate_label, c.relation, c.verdict, r.started_at from analysis.audit_comparisons as c"
        " inner join marts.dim_runs as r on c.run_id = r.run_id and r.run_status = 'succeeded'"
        " where ? in (c.baseline_subject_id, c.candidate_subject_id)"
        " qualify rank() over (partition by c.baseline_subject_id, c.candidate_subject_id"
        " order by r.started_at desc, c.run_id desc) = 1)"
        " select run_id, baseline_subject_id, candidate_subject_id, baseline_label, candidate_label, relation,"
        " list(verdict) as verdicts from latest group by run_id, baseline_subject_id, candidate_subject_id,"
        " baseline_label, candidate_label, relation order by baseline_label, candidate_label",
        [subject_id],
    )
    lines = []
    for row in rows:
        address = (
            f"{run_file(row['run_id'])}#{comparison_anchor(row['baseline_subject_id'], row['candidate_subject_id'])}"
        )
        counts = _counts([{"verdict": verdict} for verdict in row["verdicts"]])
        lines.append(
            [
                f'<a href="{text(address)}">{text(row["candidate_label"])} against {text(row["baseline_label"])}</a>',
                row["relation"],
                f"{counts} of {len(row['verdicts'])} findings",
            ]
        )
    return lines
