"""Did two runs give the same results? Checked on the stored rows, never assumed from their inputs.

:func:`compare_runs` lists what differs between two runs of one warehouse, one
:class:`Difference` per group: the study, the config (stored parameters), the inputs (version
and sha256), the code, then each result table whose rows differ by the rules of
:mod:`biaswh.analysis.common.result_rows` (shared with ``benchmarks/compare_warehouses.py``).
``biaswh diff`` prints it; each run's page says it about the study's run before.

An ANN index (``[retrieval.ann]``) is built once per warehouse and reused, its partitions from
seeded centroids (:mod:`biaswh.compute.retrieval.ann_centroids`): ``ivf_flat`` runs agree in two
fresh warehouses too; ``ivf_hnsw_sq`` and ``ivf_pq`` runs may not (Lance builds their graph and
codebook unseeded).
"""

from __future__ import annotations

import json
from dataclasses import dataclass

import duckdb

from biaswh.analysis.common.result_rows import row_counts, run_family, run_keyed_tables, table_difference


@dataclass(frozen=True)
class Difference:
    """One group of differences between two runs: ``group`` (config, inputs, code, a table) and what."""

    group: str
    detail: str

    def line(self) -> str:
        return f"{self.group}: {self.detail}"


def _flat(value, prefix: str = "") -> dict[str, str]:
    """A nested parameter dict as dotted keys -> JSON text."""
    if isinstance(value, dict) and value:
        out = {}
        for key, inner in value.items():
            out.update(_flat(inner, f"{prefix}.{key}" if prefix else str(key)))
        return out
    return {prefix: json.dumps(value, sort_keys=True)}


def _run_record(con, run_id: str) -> dict | None:
    cursor = con.execute("select * from marts.dim_runs where run_id = ?", [run_id])
    row = cursor.fetchone()
    return None if row is None else dict(zip([d[0] for d in cursor.description], row))


def _json(text) -> dict:
    try:
        found = json.loads(text or "{}")
    except (TypeError, ValueError):
        return {"(text)": text}
    return found if isinstance(found, dict) else {"(value)": found}


def _changed_keys(a: dict, b: dict) -> list[str]:
    flat_a, flat_b = _flat(a), _flat(b)
    return sorted(key for key in set(flat_a) | set(flat_b) if flat_a.get(key) != flat_b.get(key))


def _inputs(con, run: dict) -> set[tuple]:
    """(dataset, name, version, sha256) of each input a run read (sha256 from marts.dim_source_versions)."""
    pinned = {(i["dataset"], i["name"], i["version"]) for i in run.get("inputs") or []}
    (versions,) = con.execute(
        "select count(*) from information_schema.tables"
        " where table_schema = 'marts' and table_name = 'dim_source_versions'"
    ).fetchone()
    if not versions or not pinned:
        return {(*p, None) for p in pinned}
    rows = con.execute(
        "select dataset, source_name, source_version, source_sha256 from marts.dim_source_versions"
    ).fetchall()
    sha = {(d, n, v): s for d, n, v, s in rows}
    return {(*p, sha.get(p)) for p in pinned}


def _shown(inputs: set[tuple]) -> str:
    """Inputs as "dataset name vVERSION sha256 PREFIX", sorted."""
    found = sorted(inputs, key=str)
    return ", ".join(f"{d} {n} v{v}" + (f" sha256 {s[:12]}" if s else "") for d, n, v, s in found) or "none"


def compare_runs(con: duckdb.DuckDBPyConnection, run_a: str, run_b: str) -> list[Difference]:
    """What differs between two runs, one :class:`Difference` per group ([] when identical).

    Groups, in order: ``study`` (name), ``config`` (the stored parameters that differ, dotted keys),
    ``inputs`` (dataset, name, version, sha256), ``code`` (code version, package versions), then
    each run-keyed table whose rows differ. Raises ``KeyError`` naming a run not in ``marts.dim_runs``.
    """
    runs = {}
    for run_id in (run_a, run_b):
        record = _run_record(con, run_id)
        if record is None:
            raise KeyError(run_id)
        runs[run_id] = record
    a, b = runs[run_a], runs[run_b]
    found = []
    if a["run_name"] != b["run_name"]:
        found.append(Difference("study", f"{a['run_name']} vs {b['run_name']}"))
    changed = _changed_keys(_json(a["parameters"]), _json(b["parameters"]))
    changed += [f"run_parameters.{k}" for k in _changed_keys(_json(a["run_parameters"]), _json(b["run_parameters"]))]
    if changed:
        found.append(Difference("config", ", ".join(sorted(set(changed)))))
    inputs_a, inputs_b = _inputs(con, a), _inputs(con, b)
    if inputs_a != inputs_b:
        only_a, only_b = _shown(inputs_a - inputs_b), _shown(inputs_b - inputs_a)
        found.append(Difference("inputs", f"A read {only_a}; B read {only_b}"))
    code = []
    if a["code_version"] != b["code_version"]:
        code.append(f"code version {str(a['code_version'])[:12]} vs {str(b['code_version'])[:12]}")
    packages_a, packages_b = _json(a["package_versions"]), _json(b["package_versions"])
    code += [f"{p} {packages_a.get(p)} vs {packages_b.get(p)}" for p in _changed_keys(packages_a, packages_b)]
    if code:
        found.append(Difference("code", ", ".join(code)))
    tables = run_keyed_tables(con)
    counts_a, counts_b = row_counts(con, run_a, tables), row_counts(con, run_b, tables)
    families = run_family(con, run_a), run_family(con, run_b)
    for table in tables:
        counts = counts_a.get(table.name, 0), counts_b.get(table.name, 0)
        if counts == (0, 0):
            continue
        detail = table_difference(con, table, run_a, run_b, counts, families=families)
        if detail is not None:
            found.append(Difference(table.name, detail))
    return found


def results_identical(differences: list[Difference]) -> bool:
    """Whether none of the differences is in a result table (only config, inputs or code differ)."""
    return not any("." in d.group for d in differences)
