"""The compute engine switch: ``[compute]`` and ``biaswh run --compute/--ray-address`` (no Ray needed)."""

from __future__ import annotations

import dataclasses
import subprocess
import sys

import pytest

from biaswh.compute.common.engine import ComputeSettings, compute_settings, with_compute
from biaswh.warehouse.errors import UserError
from biaswh.warehouse.settings.home import REPOSITORY_ROOT
from tests.conftest import DEMO_STUDY, assert_refused, run_main


def _demo(**compute):
    from biaswh.pipeline import load_plugins
    from biaswh.warehouse.runs.study import load_study

    load_plugins()
    study = load_study(DEMO_STUDY)
    return dataclasses.replace(study, settings={**study.settings, "compute": compute}) if compute else study


def test_local_is_the_default():
    assert compute_settings(_demo().settings) == ComputeSettings("local", None, None)


def test_the_config_table_is_read():
    settings = compute_settings(_demo(engine="ray", address="auto", workers=4).settings)
    assert settings == ComputeSettings("ray", "auto", 4)


@pytest.mark.parametrize(
    ("table", "named"),
    [
        ({"engine": "ray", "workers": 0}, "[compute] workers: 0"),
        ({"address": "auto"}, "[compute] address: 'auto' needs engine"),
        ({"engine": "spark"}, "[compute] engine: 'spark'"),
    ],
)
def test_wrong_values_are_refused_with_their_key(table, named):
    with pytest.raises(UserError, match=named.replace("[", r"\[").replace("]", r"\]")):
        compute_settings({"compute": table})


def test_the_command_line_overrides_the_config_and_is_recorded():
    study = with_compute(_demo(engine="ray", address="auto"), engine="local")
    assert study.settings["compute"] == {"engine": "local"}
    assert study.parameters()["settings"]["compute"] == {"engine": "local"}
    assert compute_settings(with_compute(_demo(), address="ray://head:10001").settings) == ComputeSettings(
        "ray", "ray://head:10001", None
    )


def test_a_wrong_engine_in_the_config_is_refused_before_the_run(tmp_path, con, capsys):
    config = DEMO_STUDY.read_text(encoding="utf-8").replace("demo_data/", f"{DEMO_STUDY.parent}/demo_data/")
    study = tmp_path / "study.toml"
    study.write_text(config + '\n[compute]\nengine = "spark"\n', encoding="utf-8")
    code, _, error = run_main(["run", str(study)], capsys)
    assert_refused(code, error, [str(study), "[compute] engine", "spark"])
    assert con.execute("select count(*) from raw.runs").fetchone() == (0,)


def test_the_local_engine_never_imports_ray():
    """Every compute job module loaded and the local pool taken: Ray stays unimported."""
    script = (
        "import sys\n"
        "from biaswh.pipeline import load_plugins\n"
        "load_plugins()\n"
        "from biaswh.compute.retrieval.query_set_retrieval import compute_pool\n"
        "from biaswh.compute.common.engine import compute_settings\n"
        "with compute_pool(compute_settings({}), {}, None) as pool:\n"
        "    assert pool is None\n"
        "print(sorted(m for m in sys.modules if m == 'ray' or m.startswith('ray.')))\n"
    )
    completed = subprocess.run(
        [sys.executable, "-c", script], cwd=REPOSITORY_ROOT, capture_output=True, text=True, check=True
    )
    assert completed.stdout.strip() == "[]"


def test_an_unknown_engine_on_the_command_line_is_refused(capsys):
    code, _, error = run_main(["run", str(DEMO_STUDY), "--compute", "spark"], capsys)
    assert code == 2 and "--compute" in error and "spark" in error
