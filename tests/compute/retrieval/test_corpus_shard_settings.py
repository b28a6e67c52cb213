"""The corpus_shards setting: read from [compute] and the command line and recorded; a bad count, shards
without Ray, and a retriever or an evaluation run that cannot shard are refused before the run."""

from __future__ import annotations

import pytest

from biaswh.compute.common.engine import ComputeSettings, compute_settings, with_compute
from biaswh.warehouse.errors import UserError
from tests.conftest import DEMO_STUDY, assert_refused, run_main


@pytest.mark.parametrize(
    ("table", "named"),
    [
        ({"engine": "ray", "corpus_shards": 0}, "[compute] corpus_shards: 0 must be at least 1"),
        ({"corpus_shards": 2}, '[compute] corpus_shards: 2 needs engine = "ray"'),
        ({"engine": "ray", "workers": 2, "corpus_shards": 3}, "[compute] corpus_shards: 3 needs as many workers"),
    ],
)
def test_wrong_shard_counts_are_refused_with_their_key(table, named):
    with pytest.raises(UserError) as refused:
        compute_settings({"compute": table})
    assert str(refused.value) == named or str(refused.value).startswith(named)


def test_the_setting_is_read_and_defaults_to_one():
    assert compute_settings({}).corpus_shards == 1
    assert compute_settings({"compute": {"engine": "ray", "corpus_shards": 4}}).corpus_shards == 4


@pytest.mark.parametrize(
    ("extra", "named"),
    [
        ("[compute]\nengine = \"ray\"\ncorpus_shards = 'two'\n", "[compute] corpus_shards"),
        (
            '[compute]\nengine = "ray"\ncorpus_shards = 2\n',
            "[compute] corpus_shards: 2 cannot rank bm25_seed_compatible",
        ),
    ],
)
def test_the_cli_refuses_a_bad_or_unshardable_setting_before_the_run(tmp_path, con, capsys, extra, named):
    config = DEMO_STUDY.read_text(encoding="utf-8").replace("demo_data/", f"{DEMO_STUDY.parent}/demo_data/")
    if "cannot rank" in named:
        listed = 'retrievers = ["bm25", "dense", "hybrid_union", "hybrid_minmax", "hybrid_rrf"]'
        assert listed in config
        config = config.replace(listed, 'retrievers = ["bm25", "bm25_seed_compatible"]')
    study = tmp_path / "study.toml"
    study.write_text(config + "\n" + extra, encoding="utf-8")
    code, _, error = run_main(["run", str(study)], capsys)
    assert_refused(code, error, [str(study), named])
    assert con.execute("select count(*) from raw.runs").fetchone() == (0,)


def test_the_command_line_sets_the_shards_and_they_are_recorded():
    from biaswh.pipeline import load_plugins
    from biaswh.warehouse.runs.study import load_study

    load_plugins()
    study = with_compute(load_study(DEMO_STUDY), engine="ray", corpus_shards=3)
    assert study.parameters()["settings"]["compute"] == {"engine": "ray", "corpus_shards": 3}
    assert compute_settings(study.settings) == ComputeSettings("ray", None, None, 3)
    # The local engine drops shards set in the config, as it drops the Ray address.
    assert "corpus_shards" not in with_compute(study, engine="local").settings["compute"]


def test_shards_on_the_command_line_without_ray_are_refused(capsys):
    code, _, error = run_main(["run", str(DEMO_STUDY), "--corpus-shards", "2"], capsys)
    assert_refused(code, error, ["--corpus-shards", "corpus_shards: 2", 'needs engine = "ray"'])


def test_an_evaluation_run_that_cannot_shard_is_refused_before_the_run(tmp_path, con, capsys):
    """A run of a series that cannot shard (an override of [retrieval] in one [[evaluation.runs]]) is
    named when shards are asked for, before anything is ingested or Ray starts."""
    from biaswh.warehouse.settings.home import REPOSITORY_ROOT

    demo = REPOSITORY_ROOT / "studies" / "demo_evaluation.toml"
    config = demo.read_text(encoding="utf-8").replace("demo_data/", f"{demo.parent}/demo_data/")
    study = tmp_path / "evaluation.toml"
    run = '[[evaluation.runs]]\nlabel = "numpy_order"\nretrieval = { retrievers = ["bm25_seed_compatible"] }\n'
    study.write_text(config.replace("# Run parameters", run + "\n# Run parameters"), encoding="utf-8")
    code, _, error = run_main(["run", str(study), "--compute", "ray", "--corpus-shards", "2"], capsys)
    assert_refused(
        code, error, ["[[evaluation.runs]] numpy_order", "corpus_shards: 2 cannot rank bm25_seed_compatible"]
    )
    assert con.execute("select count(*) from raw.runs").fetchone() == (0,)
