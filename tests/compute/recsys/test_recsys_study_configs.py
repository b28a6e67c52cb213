"""The recsys study configs parse, their sources are registered, and bad options are refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from biaswh.compute.recsys.steps import recsys_options
from biaswh.pipeline import load_plugins
from biaswh.warehouse.errors import UserError
from biaswh.warehouse.runs.study import load_study
from tests.conftest import REPOSITORY_ROOT, shared_file

STUDIES = REPOSITORY_ROOT / "studies"


def test_the_demo_config_runs_the_job_on_synthetic_data():
    load_plugins()
    study = load_study(STUDIES / "demo_recsys.toml")
    assert study.jobs == ["recsys_bias", "recsys_feature_importance"]
    assert study.ingest[0]["source"] == "recsys_simulated"
    assert Path(study.resolve(study.ingest[0]["path"])).is_file()
    assert recsys_options(study)["pool"] == "non_recommended"
    assert "SYNTHETIC" in Path(study.resolve(study.ingest[0]["path"])).read_text(encoding="utf-8")


@pytest.mark.real_data
def test_the_published_config_points_at_the_shared_summary():
    load_plugins()
    study = load_study(STUDIES / "recsys_published.toml")
    assert (
        Path(study.resolve(study.ingest[0]["path"]))
        == shared_file("recsys-bias/pool_vs_recommended_summary.csv").resolve()
    )


@pytest.mark.parametrize(
    "body, message",
    [
        ('[recsys]\npool = "everyone"\n', "pool must be"),
        ('[recsys]\np_adjust = "bonferroni"\n', "p_adjust must be"),
        ("[recsys]\nalfa = 0.1\n", "[recsys] unknown key 'alfa'"),
        # one verdict policy: the recsys family cannot adjust otherwise than the study
        (
            '[recsys]\np_adjust = "fdr_bh"\n',
            "differs from the study's verdict policy",
        ),
        ("[parameters]\nrecsys_alpha = 0.01\n", "[parameters] recsys_alpha: set [verdicts] alpha instead"),
        ("[parameters]\nverdicts_alpha = 0.01\n", "[parameters] verdicts_alpha: set [verdicts] alpha instead"),
    ],
)
def test_bad_recsys_options_are_refused(tmp_path, body, message):
    load_plugins()
    path = tmp_path / "s.toml"
    path.write_text('[study]\nname = "s"\nseed = 1\njobs = ["recsys_bias"]\n' + body, encoding="utf-8")
    with pytest.raises(UserError, match=message.replace("[", r"\[").replace("]", r"\]")):
        recsys_options(load_study(path))


@pytest.mark.real_data
def test_the_paper_config_loads_the_three_published_files():
    load_plugins()
    study = load_study(STUDIES / "recsys_paper.toml")
    folder = shared_file("recsys-bias/paper-submitted/pool_vs_recommended_summary.csv").parent
    assert [(step["source"], Path(study.resolve(step["path"]))) for step in study.ingest] == [
        ("recsys_summary", folder / "pool_vs_recommended_summary.csv"),
        ("recsys_directional_bias", folder / "directional_bias_data.csv"),
        ("recsys_feature_importance", folder / "feature_importance_data.csv"),
    ]
    assert study.run_parameters["recsys_dataset_only_features"] == "author_*=twitter"


def test_the_recsys_job_takes_the_studys_verdict_policy(tmp_path):
    load_plugins()
    path = tmp_path / "s.toml"
    path.write_text(
        '[study]\nname = "s"\nseed = 1\njobs = ["recsys_bias"]\n[verdicts]\nadjustment = "bh"\nalpha = 0.01\n'
        '[recsys]\np_adjust = "fdr_bh"\n',
        encoding="utf-8",
    )
    study = load_study(path)
    options = recsys_options(study)
    assert (options["p_adjust"], options["alpha"], options["published_alpha"]) == ("fdr_bh", 0.01, 0.05)
    # the SQL verdicts (significant_adjusted) read the same alpha from the run's parameters
    assert study.run_parameters["verdicts_alpha"] == 0.01


def test_bad_importance_options_are_refused(tmp_path):
    from biaswh.compute.recsys.steps_importance import importance_options

    load_plugins()
    path = tmp_path / "s.toml"
    path.write_text('[study]\nname = "s"\nseed = 1\n[recsys_importance]\nfolds = 1\n', encoding="utf-8")
    with pytest.raises(UserError, match=r"\[recsys_importance\] folds must be an integer in \[2, 100\], got 1"):
        importance_options(load_study(path))
