"""The subjects' pages: ``subjects.html`` lists every subject, ``subjects/<subject id>.html`` profiles one.

A profile has one line per bias dimension a study measured: the dimension's strongest headline
finding (on its common scale, e.g. WEAT's d; the smallest adjusted p, else the smallest raw p,
else the largest effect), its effect and interval, its verdict with how many of the dimension's
headline findings are significant, the other metrics of the dimension each on its own scale and
labelled (WEAT's RND, MAC, ECT, RIPA, RNSB), the data it stands on (demo, synthetic or real), and
links to its study's page and its run's page. Below it,
the comparisons it is in (versions and rivals, :mod:`biaswh.dashboards.common.page_comparisons`), then
one "not measured" line per study type an audit did not run for the subject, with why; then
every finding. All of it reads ``subject_findings`` and ``audit_coverage`` (warehouse/relations/subjects.py).
"""

from __future__ import annotations

import duckdb

from biaswh.dashboards.common.addresses import run_file, safe_name, study_file
from biaswh.dashboards.common.format import fixed, interval, p_value, shared_decimals
from biaswh.dashboards.common.html import table, text
from biaswh.dashboards.common.page_comparisons import comparisons_of
from biaswh.dashboards.common.queries import relation_exists
from biaswh.dashboards.common.runs import BADGES
from biaswh.dashboards.common.site import register_page, register_page_set

SUBJECT_FOLDER = "subjects"
_STRONGEST_FIRST = (
    "coalesce(p_adjusted, p_value, 2) asc, abs(coalesce(effect, 0)) desc, finding asc"  # ties: the finding's name
)


def subject_file(subject_id: str) -> str:
    """The address of one subject's profile (site-relative)."""
    return f"{SUBJECT_FOLDER}/{safe_name(subject_id)}.html"


def _label(name: str, version: str | None) -> str:
    return f"{name} {version}" if version else name


def _rows(con: duckdb.DuckDBPyConnection, sql: str, parameters=()) -> list[dict]:
    cursor = con.execute(sql, list(parameters))
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, row)) for row in cursor.fetchall()]


def _data(kind: str | None) -> str:
    return BADGES.get(kind or "real", "real data").lower()


def _data_kinds(kinds) -> str:
    """Every kind of data in ``kinds``, real first: "real data", "real and demo data"."""
    present = {kind or "real" for kind in kinds} or {"real"}
    words = [_data(kind).removesuffix(" data") for kind in ("real", "synthetic", "demo") if kind in present]
    return (", ".join(words[:-1]) + " and " + words[-1] if len(words) > 1 else words[0]) + " data"


def _kind_of(kinds) -> str:
    """The data kind a subject's findings stand on: demo when any is demo data, then synthetic, else real."""
    kinds = {kind or "real" for kind in kinds}
    return "demo" if "demo" in kinds else "synthetic" if "synthetic" in kinds else "real"


@register_page("subjects.html", "Subjects")
def subjects_page(con: duckdb.DuckDBPyConnection) -> str:
    """Every subject a study or an audit measured, linked to its profile."""
    if not relation_exists(con, "main", "dim_subjects"):
        return '<p class="note">No subject measured yet: run a study, or an audit (biaswh audit AUDIT.toml).</p>'
    runs = (
        "marts.dim_runs"
        if relation_exists(con, "marts", "dim_runs")
        else "(select null::varchar as run_id, null::timestamp as started_at where false)"
    )
    subjects = _rows(
        con,
        f"""
        with latest as (
            select f.subject_id, f.verdict from subject_findings as f left join {runs} as r using (run_id)
            qualify dense_rank() over (partition by f.subject_id, f.study_type, f.dimension
                order by r.started_at desc nulls last, f.run_id desc) = 1
        ),
        counts as (
            select subject_id, count(*) filter (where verdict = 'significant') as n_significant,
                count(*) filter (where verdict in ('significant', 'no evidence')) as n_tested
            from latest group by subject_id
        ),
        kinds as (
            select subject_id, list(distinct coalesce(data, 'real')) as data_kinds
            from subject_findings group by subject_id
        )
        select d.subject_id, d.subject_kind, d.subject_name, d.subject_version, d.config_hash, d.n_runs,
            coalesce(c.n_significant, 0) as n_significant, coalesce(c.n_tested, 0) as n_tested, k.data_kinds
        from dim_subjects as d left join counts as c using (subject_id) left join kinds as k using (subject_id)
        order by d.subject_kind, d.subject_name, d.subject_version nulls first, d.config_hash nulls first
        """,
    )
    rows = [
        [
            f'<a href="{text(subject_file(s["subject_id"]))}">'
            f"{text(_label(s['subject_name'], s['subject_version']))}</a>",
            s["subject_kind"],
            f"<code>{text(s['config_hash'][:12])}</code>" if s["config_hash"] else "named by a study",
            _data_kinds(s["data_kinds"] or []),
            s["n_runs"],
            f"{s['n_significant']} of {s['n_tested']}" if s["n_tested"] else "none tested",
        ]
        for s in subjects
    ]
    intro = (
        '<p class="note">Every subject (a retriever, an embedding, an LLM) a study or an audit measured. A subject'
        " an audit declared has a version and a configuration hash; one a study named outside an audit is known by"
        " its kind and name only (its configuration: named by a study). Significant: of the tested findings of each"
        " dimension's latest run (as its profile shows them), how many are significant under the policy that judged"
        " them; descriptive findings are not counted. Data: every kind of data the subject's runs stand on."
        " Everything about one subject is one query:"
        " <code>select * from subject_findings where subject_id = '...'</code>.</p>"
    )
    columns = ["subject", "kind", "configuration", "data", "runs", "significant (latest runs)"]
    return intro + table(columns, rows, raw_columns=frozenset({"subject", "configuration"}))


def _count(verdict: str, group: list[dict]) -> str:
    """The verdict with how many of ``group`` are significant among the tested."""
    significant = sum(f["verdict"] == "significant" for f in group)
    tested = sum(f["verdict"] in ("significant", "no evidence") for f in group)
    return verdict if not tested else f"{verdict} ({significant} of {tested} significant)"


def _effect(finding: dict) -> str:
    """A finding's effect (bold) and its interval in the same decimals ("<b>1.00</b> [0.99, 1.01]"), escaped."""
    if finding["effect"] is None:
        return "<b>not computed</b>"
    value, bounds = _effect_cells(finding)
    return f"<b>{text(value)}</b> {text(bounds)}"


def _effect_cells(finding: dict) -> tuple[str, str]:
    """A finding's effect and its interval, in the decimals they share (the one format policy)."""
    if finding["effect"] is None:
        return "not computed", interval(finding["ci_low"], finding["ci_high"])
    places = shared_decimals(finding["effect"], finding["ci_low"], finding["ci_high"])
    return fixed(finding["effect"], places), interval(finding["ci_low"], finding["ci_high"], places=places)


def _beside(others: list[dict]) -> str:
    """The dimension's other metrics, each on its own scale and labelled: folded under the headline."""
    if not others:
        return ""
    items = "".join(
        f"<li>{text(f['finding'])}: {_effect(f)}, {text(f['verdict'])}"
        + (f" (adjusted p {text(p_value(f['p_adjusted']))})" if f["p_adjusted"] is not None else "")
        + f'<br><span class="note">scale: {text(f["effect_name"])}</span></li>'
        for f in others
    )
    many = len(others) != 1
    summary = _count(f"{len(others)} other metric{'s on their own scales' if many else ' on its own scale'}", others)
    return f'<details class="beside"><summary>{text(summary)}</summary><ul>{items}</ul></details>'


def _run_starts(con: duckdb.DuckDBPyConnection, findings: list[dict]) -> dict[str, object]:
    """When each run behind ``findings`` started (marts.dim_runs); {} in a warehouse without it."""
    run_ids = sorted({f["run_id"] for f in findings})
    if not run_ids or not relation_exists(con, "marts", "dim_runs"):
        return {}
    rows = con.execute("select run_id, started_at from marts.dim_runs where list_contains(?, run_id)", [run_ids])
    return {run_id: started for run_id, started in rows.fetchall() if started is not None}


def _findings_of(con: duckdb.DuckDBPyConnection, subject_ids: list[str]) -> dict[str, list[dict]]:
    """Each subject's findings, strongest first within each dimension, in one query: the view
    ``subject_findings`` gathers every family's results, and read once per subject it was most of
    a draw (23 subjects: 3.7 s, against 0.1 s for all at once)."""
    findings: dict[str, list[dict]] = {subject_id: [] for subject_id in subject_ids}
    sql = "select * from subject_findings where list_contains(?, subject_id) order by subject_id, study_type, dimension"
    sql += f", {_STRONGEST_FIRST}"
    for finding in _rows(con, sql, [subject_ids]):
        findings[finding["subject_id"]].append(finding)
    return findings


def _latest_run(group: list[dict], starts: dict[str, object]) -> str:
    """The run of ``group`` that started last (a run without a start time counts as earliest; ties: run id)."""
    runs = {f["run_id"] for f in group}
    dated = [r for r in runs if r in starts]
    return max(dated, key=lambda r: (starts[r], r)) if dated else group[0]["run_id"]


def _dimension_lines(findings: list[dict], starts: dict[str, object]) -> tuple[list[list], list[dict]]:
    """The profile's lines (display cells) and the stored values behind them (for the download).

    A dimension measured by several runs (a subject audited again, or by a study and an audit) is shown
    from the run that started last: the strongest finding of that run and its count, never a count of
    one test repeated over runs. Every run's findings stay in the table beneath the profile."""
    lines, stored = [], []
    seen: dict[tuple[str, str], list[dict]] = {}
    for finding in findings:  # strongest first within each dimension (the query's order)
        seen.setdefault((finding["study_type"], finding["dimension"]), []).append(finding)
    for (study_type, dimension), every in sorted(seen.items()):
        # A warehouse whose subject views predate is_headline holds only headline findings (WEAT's d).
        headlines = [f for f in every if f.get("is_headline", True)] or every
        latest = _latest_run(headlines, starts)
        group = [f for f in headlines if f["run_id"] == latest]
        top = group[0]
        n_runs = len({f["run_id"] for f in headlines})
        repeated = f"; the latest of {n_runs} runs that measured it (every run's findings below)" if n_runs > 1 else ""
        # beneath the line: the other metrics of the run its headline comes from
        others = [f for f in every if not f.get("is_headline", True) and f["run_id"] == latest]
        others = others if headlines is not every else []
        verdict = _count(top["verdict"], group)
        lines.append(
            [
                study_type,
                f'{text(dimension)}<br><span class="note">{text(top["finding"])}; effect: {text(top["effect_name"])}'
                f"{text(repeated)}</span>{_beside(others)}",
                *_effect_cells(top),
                top["p_adjusted"],
                verdict,
                _data(top["data"]),
                f'<a href="{text(study_file(top["study"]))}">{text(top["study"])}</a><br>'
                f'<a href="{text(run_file(top["run_id"]))}">run <code>{text(top["run_id"][:12])}</code></a>',
            ]
        )
        keys = ("study_type", "dimension", "finding", "effect_name", "effect", "ci_low", "ci_high", "p_adjusted")
        stored.append({**{k: top[k] for k in keys}, "verdict": verdict, "data": top["data"], "study": top["study"],
                       "run_id": top["run_id"], "n_beside": len(others)})  # fmt: skip
    return lines, stored


def _not_measured(con: duckdb.DuckDBPyConnection, subject_id: str) -> list[list]:
    if not relation_exists(con, "main", "audit_coverage"):
        return []
    rows = _rows(
        con,
        "select study_type, status, reason, audit from audit_coverage where subject_id = ? and status <> 'measured'"
        " and audit_status = 'succeeded' qualify row_number() over (partition by study_type"
        " order by audit_started_at desc) = 1 order by study_type",
        [subject_id],
    )
    return [[r["study_type"], r["status"], r["reason"], r["audit"]] for r in rows]


def profile_body(con: duckdb.DuckDBPyConnection, subject: dict, findings: list[dict] | None = None) -> tuple[str, str]:
    """One subject's profile and the data kind its findings stand on (``demo`` when any is demo data).

    ``findings``: the subject's rows of ``subject_findings`` in :func:`_findings_of`'s order, when read
    already (None: read here)."""
    if findings is None:
        findings = _findings_of(con, [subject["subject_id"]])[subject["subject_id"]]
    data = _kind_of(f["data"] for f in findings)
    version = f"version {text(subject['subject_version'])}" if subject["subject_version"] else "no version declared"
    configuration = (
        f"configuration hash <code>{text(subject['config_hash'][:16])}</code>"
        if subject["config_hash"]
        else "no configuration recorded (named by a study)"
    )
    intro = (
        f'<p class="note">{text(subject["subject_kind"])} <b>{text(subject["subject_name"])}</b>, {version},'
        f" {configuration},"
        f" subject id <code>{text(subject['subject_id'])}</code>. One line per bias dimension: the strongest"
        " finding of the latest run that measured it, on the dimension's common scale (smallest adjusted p; WEAT:"
        " the effect size d), under the policy"
        " that judged it (an audit's when an audit ran it); a dimension's other metrics (WEAT's RND, MAC, ECT, RIPA,"
        " RNSB) are folded beneath it, each on its own scale, labelled.</p>"
    )
    columns = ["study type", "dimension", "effect", "95% interval", "p_adjusted", "verdict", "data", "study and run"]
    lines, stored = _dimension_lines(findings, _run_starts(con, findings))
    body = intro + table(columns, lines, data=stored, raw_columns=frozenset({"dimension", "study and run"}))
    compared = comparisons_of(con, subject["subject_id"])
    if compared:
        body += "<h2>Versions and rivals</h2>" + table(
            ["comparison", "relation", "verdicts"], compared, raw_columns=frozenset({"comparison"})
        )
    missing = _not_measured(con, subject["subject_id"])
    if missing:
        body += "<h2>Not measured</h2>" + table(["study type", "status", "why", "audit"], missing)
    every = [
        [f["study_type"], f["finding"], f["effect"], f["ci_low"], f["ci_high"], f["p_value"], f["p_adjusted"],
         f["verdict"], f["policy"]]
        for f in findings
    ]  # fmt: skip
    every_columns = ["study type", "finding", "effect", "ci_low", "ci_high", "p_value", "p_adjusted", "verdict"]
    body += (
        f"<details><summary>every finding ({len(findings)})</summary>"
        f"{table([*every_columns, 'policy'], every, data=findings)}</details>"
    )
    return body, data


@register_page_set
def subject_pages(con: duckdb.DuckDBPyConnection) -> list[tuple[str, str, str, str]]:
    """One profile per subject of ``dim_subjects``: (file name, title, body, data kind)."""
    if not relation_exists(con, "main", "dim_subjects"):
        return []
    pages = []
    subjects = _rows(con, "select * from dim_subjects order by subject_id")
    findings = _findings_of(con, [subject["subject_id"] for subject in subjects])
    for subject in subjects:
        body, data = profile_body(con, subject, findings[subject["subject_id"]])
        title = f"{subject['subject_kind']} {_label(subject['subject_name'], subject['subject_version'])}"
        pages.append((subject_file(subject["subject_id"]), title, body, data))
    return pages
