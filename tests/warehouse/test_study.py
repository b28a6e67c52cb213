import pytest

from biaswh.plugins import load_plugins
from biaswh.warehouse.errors import UserError
from biaswh.warehouse.runs.study import load_study
from tests.conftest import DEMO_DATA, run_here


@pytest.fixture(scope="module", autouse=True)
def plugins():
    """The families' config tables and ingest sources register with their steps modules."""
    load_plugins()


def _study(tmp_path, body: str):
    path = tmp_path / "study.toml"
    path.write_text(body, encoding="utf-8")
    return path


def test_config_paths_resolve_relative_to_the_config(tmp_path):
    study = load_study(
        _study(
            tmp_path,
            '[study]\nname = "s"\nseed = 7\n[[ingest]]\nsource = "squad"\npath = "d/x.json"\n'
            "[dialect]\nbootstrap_resamples = 500\n",
        )
    )
    assert study.seed == 7 and study.settings == {"dialect": {"bootstrap_resamples": 500}}
    assert study.resolve("d/x.json") == str(tmp_path / "d" / "x.json")
    assert study.resolve("hf:squad") == "hf:squad"


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ('[study]\nname = "s"\n', "[study] needs seed"),
        ("[study\n", "not valid TOML"),
        ('[study]\nname = "s"\nseed = 1\n[[ingest]]\nsource = "mystery"\npath = "x"\n', "unknown source 'mystery'"),
        ('[study]\nname = "s"\nseed = 1\njobs = ["no_such_job"]\n', "[study] jobs: unknown job 'no_such_job'"),
    ],
)
def test_bad_configs_are_refused_with_the_file_named(tmp_path, body, message):
    path = _study(tmp_path, body)
    with pytest.raises(UserError) as error:
        load_study(path)
    assert str(path) in str(error.value) and message in str(error.value)


def test_a_failing_study_is_recorded_as_failed_and_its_bad_ingest_leaves_no_rows(tmp_path, warehouse_home):
    bad_pairs = tmp_path / "pairs.csv"
    bad_pairs.write_text("id,squad_idx,sae_query,aave_query\n1,0,a,b\n1,1,c,d\n", encoding="utf-8")
    path = _study(
        tmp_path,
        f'[study]\nname = "broken"\nseed = 1\n'
        f'[[ingest]]\nsource = "squad"\npath = "{DEMO_DATA / "squad_demo.json"}"\n'
        f'[[ingest]]\nsource = "pairs"\npath = "{bad_pairs}"\n',
    )
    completed = run_here("run", str(path), home=warehouse_home, check=False)
    assert completed.returncode == 2 and "duplicate pair id '1'" in completed.stderr
    runs = run_here("sql", "select kind, status from raw.runs order by started_at", "--csv", home=warehouse_home)
    assert runs.stdout.splitlines()[1:] == ["study,failed", "ingest_squad,succeeded"]
    pairs = run_here("sql", "select count(*) from raw.query_pair_variants", "--csv", home=warehouse_home)
    assert pairs.stdout.splitlines()[1:] == ["0"]
