"""Study configs are checked against one schema: unknown keys and wrong types are refused with the key's path."""

from __future__ import annotations

import pytest

from biaswh.pipeline import load_plugins
from biaswh.warehouse.errors import UserError
from biaswh.warehouse.runs.study import STUDY_INGESTERS, load_study
from biaswh.warehouse.settings.home import REPOSITORY_ROOT
from biaswh.warehouse.settings.study_schema import INGEST_SOURCES

HEAD = '[study]\nname = "s"\nseed = 1\n'


@pytest.fixture(scope="module", autouse=True)
def plugins():
    load_plugins()


STUDY_CONFIGS = sorted(p for p in (REPOSITORY_ROOT / "studies").glob("*.toml") if not p.name.startswith("audit_"))


@pytest.mark.parametrize("path", STUDY_CONFIGS, ids=lambda p: p.name)
def test_every_shipped_study_config_loads(path):
    study = load_study(path)
    assert study.name and isinstance(study.seed, int)
    # each states what its data is, and a demo config says demo (pages badge it: warehouse/runs/data_kind.py)
    assert study.data in ("real", "synthetic", "demo") and study.parameters()["data"] == study.data
    assert study.data == "demo" or not path.name.startswith("demo")


def test_the_schema_knows_every_registered_ingest_source():
    assert set(INGEST_SOURCES) == {"squad", "pairs", *STUDY_INGESTERS}


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ('jbos = ["retrieval"]\n', "[study] unknown key 'jbos' (did you mean 'jobs'?)"),
        ("[retreival]\ndepth = 5\n", "unknown table [retreival] (did you mean [retrieval]?)"),
        (
            "[retrieval.hybrid]\nweigths = [0.5, 0.5]\n",
            "[retrieval.hybrid] unknown key 'weigths' (did you mean 'weights'?)",
        ),
        ('[retrieval]\ndepth = "5"\n', "[retrieval] depth must be an integer in [1, 10000], got '5'"),
        ("[retrieval]\ndepth = 5.0\n", "[retrieval] depth must be an integer in [1, 10000], got 5.0"),
        ("[retrieval]\nbm25 = { k1 = 1.2, bb = 0.7 }\n", "[retrieval.bm25] unknown key 'bb' (did you mean 'b'?)"),
        (
            '[retrieval.embedding]\nprovider = "local"\nbatchsize = 8\n',
            "[retrieval.embedding] unknown key 'batchsize' (did you mean 'batch_size'?)",
        ),
        (
            '[retrieval.ann]\nindex = "ivf_flat"\npartitions = "4"\n',
            "[retrieval.ann] partitions must be an integer >= 1, got '4'",
        ),
        (
            '[retrieval.tokenizer]\nlowercase = "yes"\n',
            "[retrieval.tokenizer] lowercase must be true or false, got 'yes'",
        ),
        ('[retrieval]\nquery_sets = "pairs"\n', "[retrieval] query_sets must be a list of strings, got 'pairs'"),
        (
            '[retrieval.hybrid]\nweights = [0.5, "0.5"]\n',
            "[retrieval.hybrid] weights must be a list of numbers; item 2",
        ),
        (
            '[[ingest]]\nsource = "pairs"\npath = "p.csv"\nvariant = { a = "b" }\n',
            "[[ingest]] #1 (source = \"pairs\"): unknown key 'variant' (did you mean 'variants'?)",
        ),
        (
            '[[ingest]]\nsource = "squad"\npath = "s.json"\n'
            '[[ingest]]\nsource = "pairs"\npath = "p.csv"\ncleanup = 1\n',
            '[[ingest]] #2 (source = "pairs"): cleanup must be true, false, '
            "'light', 'seed_compatible' or 'none', got 1",
        ),
        ('[[ingest]]\nsource = "qrels"\npath = "q.csv"\n', '[[ingest]] #1 (source = "qrels"): needs query_set'),
        (
            '[[ingest]]\nsource = "sqaud"\npath = "q.csv"\n',
            "[[ingest]] #1 has unknown source 'sqaud' (did you mean 'squad'?)",
        ),
        ('[[ingest]]\nsource = "squad"\n', '[[ingest]] #1 (source = "squad"): needs path'),
        (
            '[evaluation]\nquery_set = "squad_questions:x"\nsampel = 5\n',
            "[evaluation] unknown key 'sampel' (did you mean 'sample'?)",
        ),
        (
            '[evaluation]\nquery_set = "squad_questions:x"\n[[evaluation.runs]]\nlabel = "a"\n'
            "retrieval = { bm25 = { k2 = 1.0 } }\n",
            "[[evaluation.runs]] #1 retrieval.bm25: unknown key 'k2'",
        ),
        (
            '[evaluation]\nquery_set = "squad_questions:x"\n[[evaluation.runs]]\nbaseline = true\n',
            "[[evaluation.runs]] #1: needs label",
        ),
        ("[weat]\nmin_coverge = 0.5\n", "[weat] unknown key 'min_coverge' (did you mean 'min_coverage'?)"),
        ('[weat]\nbalance = "no"\n', "[weat] balance must be true or false"),
        ('[silent_bias]\nconfidence = "95%"\n', "[silent_bias] confidence must be a number in (0, 1)"),
        (
            "[dialect]\nbootstrap_resamples = 2000.5\n",
            "[dialect] bootstrap_resamples must be an integer in [100, 10000000]",
        ),
        ('[recsys]\nyates = "true"\n', "[recsys] yates must be true or false"),
        (
            'dbt_select = { sources = "a", result = "b" }\n',
            "[study.dbt_select] unknown key 'result' (did you mean 'results'?)",
        ),
        ("dbt_select = 3\n", "[study] dbt_select must be a dbt selector or a table {sources, results}, got 3"),
        ("description = 7\n", "[study] description must be a string, got 7"),
        ('data = "research"\n', "[study] data must be one of 'real', 'synthetic', 'demo', got 'research'"),
        ('jobs = ["retreival"]\n', "[study] jobs: unknown job 'retreival' (did you mean 'retrieval'?)"),
        ("[parameters]\nno_such_parameter = 1\n", "[parameters]: unknown parameter(s) no_such_parameter"),
    ],
)
def test_unknown_keys_and_wrong_types_are_refused_with_the_key_path(tmp_path, body, message):
    path = tmp_path / "study.toml"
    path.write_text(HEAD + body, encoding="utf-8")
    with pytest.raises(UserError) as error:
        load_study(path)
    assert str(error.value).startswith(f"{path}: ") and message in str(error.value), str(error.value)


def test_a_boolean_is_never_a_number_and_an_integer_is_a_number(tmp_path):
    path = tmp_path / "study.toml"
    path.write_text(HEAD + "[retrieval]\ndrop_documents_fraction = 0\n[retrieval.bm25]\nk1 = 2\n", encoding="utf-8")
    assert load_study(path).settings["retrieval"] == {"drop_documents_fraction": 0, "bm25": {"k1": 2}}
    path.write_text(HEAD + "[silent_bias]\nconfidence = true\n", encoding="utf-8")
    with pytest.raises(UserError, match=r"confidence must be a number in \(0, 1\), got True"):
        load_study(path)


def test_the_schema_lists_what_each_consumer_reads():
    """Each table's keys are the keys its consumer accepts: a new option must be added to both."""
    import dataclasses
    import inspect

    from biaswh.compute.evaluation import series as evaluation
    from biaswh.compute.evaluation.config_section import EVALUATION
    from biaswh.compute.recsys.steps import DEFAULTS
    from biaswh.compute.retrieval import config
    from biaswh.compute.retrieval.config_section import RETRIEVAL
    from biaswh.compute.retrieval.embeddings import PROVIDERS
    from biaswh.compute.weat.runner import WeatSettings
    from biaswh.compute.weat.steps import SELECTION_KEYS
    from biaswh.warehouse.settings.study_schema import STUDY_SCHEMA

    assert set(RETRIEVAL.keys) == config._KEYS
    assert set(EVALUATION.keys) == evaluation._KEYS
    assert set(STUDY_SCHEMA.keys["recsys"].keys) == set(DEFAULTS)
    from biaswh.compute.weat.metrics import MetricSettings

    weat_options = {f.name for f in dataclasses.fields(WeatSettings)} | set(SELECTION_KEYS) | {"metrics"}
    assert set(STUDY_SCHEMA.keys["weat"].keys) == weat_options
    metric_options = {f.name for f in dataclasses.fields(MetricSettings)}
    assert set(STUDY_SCHEMA.keys["weat"].keys["metrics"].keys) == metric_options
    options = {"provider", "precomputed"}
    for provider in PROVIDERS.values():
        options |= set(inspect.signature(provider.__init__).parameters) - {"self"}
    assert set(RETRIEVAL.keys["embedding"].keys) == options


def test_sources_that_pass_their_keys_to_a_loader_accept_exactly_its_options():
    import inspect

    from biaswh.ingest.dialect.pairs import load_pairs
    from biaswh.ingest.recsys.posts import load_recsys_posts
    from biaswh.ingest.recsys.summary import load_recsys_summary
    from biaswh.ingest.retrieval.squad import load_squad

    def options(loader, *, internal=()) -> set[str]:
        parameters = inspect.signature(loader).parameters
        return {n for n, p in parameters.items() if p.kind is p.KEYWORD_ONLY} - set(internal)

    for source, loader, internal in (
        ("squad", load_squad, ()),
        ("pairs", load_pairs, ()),
        ("recsys_summary", load_recsys_summary, ()),
        # provenance is written by the simulator, never by a study
        ("recsys_posts", load_recsys_posts, ("provenance",)),
    ):
        assert set(INGEST_SOURCES[source].keys) - {"source", "path"} == options(loader, internal=internal), source
