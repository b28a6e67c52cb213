"""``pip install .`` adds one top-level name, ``biaswh``, with every layer and its data files inside it."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile

from tests.conftest import REPOSITORY_ROOT

LAYERS = ("warehouse", "stats", "ingest", "compute", "analysis", "dashboards")


def test_the_wheel_holds_one_top_level_package_with_every_layer_inside(tmp_path):
    source = tmp_path / "source"
    source.mkdir()
    for name in ("setup.py", "pyproject.toml", "README.md"):
        shutil.copy2(REPOSITORY_ROOT / name, source / name)
    for folder in ("biaswh", *LAYERS):
        shutil.copytree(REPOSITORY_ROOT / folder, source / folder, ignore=shutil.ignore_patterns("__pycache__"))
    command = [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation", "-w", str(tmp_path)]
    subprocess.run([*command, str(source)], check=True, capture_output=True)
    (wheel,) = tmp_path.glob("*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert {name.split("/")[0] for name in names if not name.split("/")[0].endswith(".dist-info")} == {"biaswh"}
    for layer in LAYERS:
        python = sorted(p.relative_to(REPOSITORY_ROOT).as_posix() for p in (REPOSITORY_ROOT / layer).rglob("*.py"))
        assert python and all(f"biaswh/{path}" in names for path in python), layer
    assert "biaswh/warehouse/relations/raw_schema/00_core.sql" in names
    assert "biaswh/cli.py" in names and "biaswh/api.py" in names
    assert not any(name.startswith(("tests/", "benchmarks/", "docs/")) for name in names)

    # Installed (a pure-Python wheel unpacked is an install), the layers import from inside biaswh/.
    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)
    probe = (
        "import biaswh, biaswh.stats.wilson as w, biaswh.warehouse.settings.plugin_roots as r;"
        " print(biaswh.CHECKOUT_LAYERS, w.__file__, r.CORE_DDL_FOLDER.is_dir(), sep='|')"
    )
    environment = {"PATH": "/usr/bin:/bin", "PYTHONPATH": str(site)}
    out = subprocess.run([sys.executable, "-c", probe], cwd=tmp_path, env=environment, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    checkout, wilson, ddl_found = out.stdout.strip().split("|")
    assert checkout == "None" and wilson == str(site / "biaswh" / "stats" / "wilson.py") and ddl_found == "True"
