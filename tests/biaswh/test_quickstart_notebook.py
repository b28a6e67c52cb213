"""examples/quickstart.ipynb runs top to bottom (nbclient, a real Jupyter kernel), so it never goes stale."""

from __future__ import annotations

import os
import shutil

import nbformat
import pytest
from nbclient import NotebookClient

import biaswh
from biaswh.warehouse.settings.home import HOME_VARIABLE
from tests.conftest import REPOSITORY_ROOT

pytestmark = pytest.mark.dbt

NOTEBOOK = REPOSITORY_ROOT / "examples" / "quickstart.ipynb"
DEMO_STUDIES = sorted((REPOSITORY_ROOT / "studies").glob("demo*.toml"))


def _outputs(cell) -> str:
    """Everything a cell showed, as one text (text/plain, text/html, stream text and mime types)."""
    parts = []
    for output in cell.get("outputs", []):
        parts.append(output.get("text", ""))
        for mime, data in output.get("data", {}).items():
            parts += [mime, data if isinstance(data, str) else str(data)]
    return "\n".join(parts)


def test_the_committed_notebook_carries_no_outputs():
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    nbformat.validate(notebook)
    code = [c for c in notebook.cells if c.cell_type == "code"]
    assert code and all(not c.outputs and c.execution_count is None for c in code)


def test_quickstart_shows_the_demo_finding_a_query_and_a_chart(demo_site, tmp_path, monkeypatch):
    # A copy of the shared demo warehouse: the demo study already succeeded there, so the
    # notebook's run cell skips it (its own parameter) and the suite does not pay for a run.
    home = tmp_path / "warehouse"
    shutil.copytree(demo_site.parent, home, ignore=shutil.ignore_patterns("site", "*.lock"))
    monkeypatch.setenv(HOME_VARIABLE, str(home))
    # the kernel imports this checkout's packages, wherever pytest was started
    python_path = [str(REPOSITORY_ROOT), os.environ.get("PYTHONPATH")]
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, python_path)))
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    NotebookClient(
        notebook, timeout=600, kernel_name="python3", resources={"metadata": {"path": str(NOTEBOOK.parent)}}
    ).execute()
    shown = {c.source.splitlines()[0]: _outputs(c) for c in notebook.cells if c.cell_type == "code"}
    assert "error" not in {o.get("output_type") for c in notebook.cells for o in c.get("outputs", [])}
    run_cell = next(text for source, text in shown.items() if source.startswith("run_id = wh.latest_run"))
    finding = next(text for source, text in shown.items() if source.startswith("findings = "))
    verdict = next(text for source, text in shown.items() if source.startswith("print(findings"))
    query = next(text for source, text in shown.items() if source.startswith("tests = wh.sql("))
    chart = next(text for source, text in shown.items() if source.startswith('charts["Recall@k'))
    from biaswh.warehouse.database.connection import connect

    con = connect(read_only=True)
    try:
        (demo_run,) = con.execute("select run_id from raw.runs where kind = 'study' and name = 'demo'").fetchone()
        n_study_runs = con.execute("select count(*) from raw.runs where kind = 'study'").fetchone()[0]
    finally:
        con.close()
    assert demo_run in run_cell and n_study_runs == len(DEMO_STUDIES)  # the notebook reused the demo run, ran nothing
    assert "text/html" in finding and 'class="verdict"' in finding and "Dialect retrieval bias" in finding
    assert verdict == biaswh.open(home).findings("dialect")["verdict"][0] + "\n"
    assert "delta_pp" in query and "ci_low" in query
    # altair renders its spec (text/html with vega-embed, or the vega-lite mime type in JupyterLab)
    assert ("vega-embed" in chart or "application/vnd.vegalite" in chart) and "Recall@k by variant" in chart
