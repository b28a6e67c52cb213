"""A study page's provenance section: which run, of which study, read which inputs with which parameters."""

from __future__ import annotations

import json

from biaswh.dashboards.common.format import timestamp
from biaswh.dashboards.common.html import text
from biaswh.dashboards.common.queries import query_dicts, relation_exists


def _short(version: str | None) -> str:
    version = version or "unknown"
    return version[:12] + (" (dirty)" if version.endswith("-dirty") else "") if len(version) >= 40 else version


def provenance_section(con, run_id: str, *, heading: str = "Provenance", level: int = 2) -> str:
    """A heading (``<h{level}>``) and the run's study, start, code version, inputs (name and version) and parameters."""
    if not relation_exists(con, "marts", "dim_runs"):
        return ""
    found = query_dicts(con, "select * from marts.dim_runs where run_id = ?", [run_id])
    if not found:
        return f"<h{level}>{text(heading)}</h{level}><p>Run <code>{text(run_id)}</code> (not in marts.dim_runs).</p>"
    run = found[0]
    inputs = (
        ", ".join(f"{i['dataset']} {i['name']} v{i['version']}" for i in run.get("inputs") or []) or "none recorded"
    )
    parameters = run.get("run_parameters") or run.get("parameters") or "{}"
    try:
        parameters = json.dumps(json.loads(parameters), sort_keys=True, indent=1)
    except (TypeError, ValueError):  # an older run stored parameters as free text
        parameters = str(parameters)
    return (
        f"<h{level}>{text(heading)}</h{level}>"
        f"<p>Study <b>{text(run.get('run_name'))}</b>, run <code>{text(run_id)}</code>, started "
        f"{text(timestamp(run.get('started_at')))} UTC, status {text(run.get('run_status'))}, code version "
        f"<code>{text(_short(run.get('code_version')))}</code>.</p>"
        f"<p><b>Inputs read</b>: {text(inputs)}.</p>"
        f'<details><summary>Parameters</summary><pre class="mono">{text(parameters)}</pre></details>'
    )
