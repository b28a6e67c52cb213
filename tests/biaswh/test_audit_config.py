"""``biaswh audit``'s config and plan: refusals in one line (exit 2), the study types each kind gets.

No warehouse is built here: the shipped ``studies/audit_demo.toml`` is planned and each study
config it generates is checked as ``biaswh run`` would check it.
"""

from __future__ import annotations

import pytest

from biaswh.common.audit_config import load_audit
from biaswh.common.audit_data import DEMO_RETRIEVAL_VECTORS, DEMO_SENTENCE_VECTORS, REAL_FILES
from biaswh.common.audit_studies import plan_audit
from biaswh.common.audit_toml import write_config
from biaswh.warehouse.runs.study import load_study
from tests.conftest import REPOSITORY_ROOT, SHARED_DATA, assert_refused, run_main, shared_file

AUDIT_DEMO = REPOSITORY_ROOT / "studies" / "audit_demo.toml"
AUDIT_REAL = REPOSITORY_ROOT / "studies" / "audit_real.toml"
HEAD = '[audit]\nname = "a"\nseed = 1\n'
_TWO = (
    '[[subjects]]\nkind = "retriever"\nname = "x"\nretriever = "bm25"\n'
    '[[subjects]]\nkind = "embedding"\nname = "e"\npath = "hf:x/y"\n'
)


def _write(tmp_path, text: str):
    path = tmp_path / "audit.toml"
    path.write_text(HEAD + text, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    ("subjects", "names"),
    [
        ('[[subjects]]\nkind = "retriever"\nname = "x"\nretriever = "bm25"\n'
         '[[subjects]]\nkind = "robot"\nname = "y"\n', ["[[subjects]] #2", "kind must be one of", "'robot'"]),
        ('[[subjects]]\nkind = "retriever"\nname = "x"\nretriever = "bm25"\nbm52 = { k1 = 1.0 }\n',
         ["[[subjects]] #1", "unknown key 'bm52'", "did you mean 'bm25'"]),
        ('[[subjects]]\nkind = "llm"\nname = "m"\ngenerations = "nowhere.jsonl"\n',
         ["[[subjects]] #1", "generations: no such file or folder 'nowhere.jsonl'"]),
        ("", ["[[subjects]]", "none: name at least one subject"]),
        ('[[subjects]]\nkind = "retriever"\nname = "x"\nretriever = "bm25"\n'
         '[[subjects]]\nkind = "retriever"\nname = "x"\nretriever = "dense"\n',
         ["[[subjects]] #2", "retriever 'x' is already subject #1"]),
        ('[[subjects]]\nkind = "embedding"\nname = "bad name"\npath = "hf:x/y"\n',
         ["[[subjects]] #1", "name 'bad name'"]),
        ('[verdicts]\nadjustment = "bonferroni"\n[[subjects]]\nkind = "retriever"\nname = "x"\nretriever = "bm25"\n',
         ["[verdicts] adjustment must be one of"]),
        (_TWO + '[[comparisons]]\nbaseline = "x"\ncandidate = "nobody"\n',
         ["[[comparisons]] #1", "candidate 'nobody' is no subject of this audit; its subjects: 'x', 'e'"]),
        (_TWO + '[[comparisons]]\nbaseline = "x"\ncandidate = "e"\n',
         ["[[comparisons]] #1", "'x' is retriever, 'e' embedding: compare one kind"]),
        (_TWO + '[[comparisons]]\nbaseline = "x"\ncandidate = "x"\n', ["[[comparisons]] #1", "with itself"]),
        (_TWO + '[[comparisons]]\nbaseline = "x"\n', ["[[comparisons]] #1", "candidate"]),
        ('[[subjects]]\nkind = "llm"\nname = "m"\n', ["[[subjects]] #1", "needs generations", "or an endpoint"]),
        ('[[subjects]]\nkind = "llm"\nname = "m"\nendpoint = "ftp://host/v1"\n',
         ["[[subjects]] #1", "endpoint 'ftp://host/v1'", "http:// or https://"]),
        ('[[subjects]]\nkind = "llm"\nname = "m"\nmodel = "gpt"\ngenerations = "a.jsonl"\n',
         ["[[subjects]] #1", "model is for an endpoint"]),
        ('[[subjects]]\nkind = "llm"\nname = "m"\nendpoint = "http://h/v1"\npool = "a.jsonl"\n',
         ["[[subjects]] #1", "pool and pool_features go together"]),
    ],
)  # fmt: skip
def test_a_bad_audit_config_is_refused_in_one_line_naming_file_subject_and_key(tmp_path, capsys, subjects, names):
    (tmp_path / "a.jsonl").write_text('{"case_id": "1"}\n', encoding="utf-8")
    path = _write(tmp_path, subjects)
    code, _, error = run_main(["audit", str(path)], capsys)
    assert_refused(code, error, [str(path), *names])


def test_a_real_audit_needs_the_real_datas_folder_with_its_files(tmp_path, capsys):
    path = tmp_path / "audit.toml"
    path.write_text(HEAD.replace("seed = 1", 'seed = 1\ndata = "real"') + _TWO, encoding="utf-8")
    code, _, error = run_main(["audit", str(path)], capsys)
    assert_refused(code, error, [str(path), "[audit]", 'data = "real" needs real_data'])
    path.write_text(HEAD.replace("seed = 1", f'seed = 1\ndata = "real"\nreal_data = "{tmp_path}"') + _TWO)
    code, _, error = run_main(["audit", str(path)], capsys)
    assert_refused(code, error, [str(path), "lacks squad-v1.1/train.parquet, dialect-pairs/"])


def test_the_real_audit_plans_the_real_studies_data(tmp_path):
    from biaswh.plugins import load_plugins
    from biaswh.warehouse.runs.study import load_study

    for name in REAL_FILES:
        shared_file(name)
    load_plugins()
    audit = load_audit(AUDIT_REAL)
    assert len(audit.subjects) == 12 and len(audit.comparisons) == 3
    planned, _ = plan_audit(audit)
    configs = {study.study_type: study.config for study in planned}
    dialect = configs["dialect retrieval bias"]
    assert [step["path"] for step in dialect["ingest"]] == [
        str(SHARED_DATA.resolve() / "squad-v1.1/train.parquet"),
        str(SHARED_DATA.resolve() / "dialect-pairs/aave_poc_dataset_20250927-193921.json"),
    ]
    assert dialect["retrieval"]["embedding"]["precomputed"] == [
        str(SHARED_DATA.resolve() / "embeddings/all-MiniLM-L6-v2.parquet")
    ]
    assert configs["word-embedding association (WEAT)"]["weat"]["match_policy"] == "exact"
    assert configs["silent bias"]["ingest"][0]["name"] == "biased_vignettes_58"
    assert len(configs["silent bias"]["ingest"]) == 9  # the vignettes and eight models' generations
    for study in planned:
        config = load_study(write_config(study.config, tmp_path / f"{study.name}.toml"), check_files=True)
        assert config.data == "real" and "(real data)" in config.description


def test_the_demo_audit_compares_each_subjects_versions_and_its_declared_rivals():
    comparisons = [(c.baseline.label, c.candidate.label, c.relation) for c in load_audit(AUDIT_DEMO).comparisons]
    assert comparisons == [
        ("demo-vectors-1", "demo-vectors-2", "versions of one subject"),
        ("bm25-k1-1.5-b-0.75", "dense-minilm", "rivals (declared)"),
        ("demo-model-a", "demo-model-b", "rivals (declared)"),
    ]


def test_the_demo_audit_plans_each_kinds_study_types_and_says_why_not_the_others(tmp_path):
    from biaswh.plugins import load_plugins
    from biaswh.warehouse.runs.study import load_study

    load_plugins()
    audit = load_audit(AUDIT_DEMO)
    planned, skipped = plan_audit(audit)
    measured = {(study.study_type, subject.label, name) for study in planned for subject, name in study.members}
    assert measured == {
        ("dialect retrieval bias", "bm25-k1-1.5-b-0.75", "bm25"),
        ("dialect retrieval bias", "dense-minilm", "dense"),
        ("retrieval evaluation", "bm25-k1-1.5-b-0.75", "bm25"),
        ("retrieval evaluation", "dense-minilm", "dense"),
        ("word-embedding association (WEAT)", "minilm-all-MiniLM-L6-v2", "minilm-all-MiniLM-L6-v2"),
        ("word-embedding association (WEAT)", "demo-vectors-1", "demo-vectors-1"),
        ("word-embedding association (WEAT)", "demo-vectors-2", "demo-vectors-2"),
        ("silent bias", "demo-model-a", "demo-model-a"),
        ("silent bias", "demo-model-b", "demo-model-b"),
    }
    not_run = {(s.subject.label, s.study_type) for s in skipped if s.status == "not run"}
    assert not_run == {("demo-model-a", "recommendation bias"), ("demo-model-b", "recommendation bias")}
    assert all("OpenAI-compatible endpoint" in s.reason for s in skipped if s.status == "not run")
    # 7 subjects x 5 study types, 9 measured and 2 not run: the other 24 do not apply, each with its reason
    not_applicable = [s for s in skipped if s.status == "does not apply"]
    assert len(not_applicable) == 24
    articles = {"retriever": "a retriever is not", "embedding": "an embedding is not", "llm": "an LLM is not"}
    assert all(s.reason.startswith(articles[s.subject.kind]) for s in not_applicable)
    # the demo's shipped vectors serve its MiniLM retriever and sentence encoder (the demo vectors are files)
    configs = {study.study_type: study.config for study in planned}
    for study_type in ("dialect retrieval bias", "retrieval evaluation"):
        assert configs[study_type]["retrieval"]["embedding"]["precomputed"] == [str(DEMO_RETRIEVAL_VECTORS)]
    weat_steps = configs["word-embedding association (WEAT)"]["ingest"]
    vectors = {step.get("name"): step.get("precomputed") for step in weat_steps if step["source"] == "word_vectors"}
    assert vectors["minilm-all-MiniLM-L6-v2"] == [str(DEMO_SENTENCE_VECTORS)] and vectors["demo-vectors-1"] is None
    # one seed and one policy in every generated study, each config as `biaswh run` checks it
    for study in planned:
        config = load_study(write_config(study.config, tmp_path / f"{study.name}.toml"), check_files=True)
        assert config.seed == audit.seed == 20261122 and config.data == "demo"
        assert config.settings["verdicts"] == {"adjustment": "holm", "alpha": 0.05}


def test_two_versions_of_one_retriever_go_to_separate_runs_and_differ_in_id(tmp_path):
    path = _write(
        tmp_path,
        '[[subjects]]\nkind = "retriever"\nname = "bm25"\nversion = "a"\nretriever = "bm25"\nbm25 = { k1 = 1.2 }\n'
        '[[subjects]]\nkind = "retriever"\nname = "bm25"\nversion = "b"\nretriever = "bm25"\nbm25 = { k1 = 0.9 }\n'
        '[[subjects]]\nkind = "retriever"\nname = "dense"\nretriever = "dense"\n',
    )
    audit = load_audit(path)
    planned, _ = plan_audit(audit)
    runs = [sorted(subject.label for subject, _ in study.members) for study in planned]
    # the dialect study, then the retrieval evaluation, each in two runs
    assert runs == [["bm25-a", "dense"], ["bm25-b"]] * 2
    assert [study.config["retrieval"]["bm25"] for study in planned] == [{"k1": 1.2}, {"k1": 0.9}] * 2
    first, second, _ = audit.subjects
    assert first.subject_id != second.subject_id and first.config_hash != second.config_hash


def test_a_subjects_recorded_file_enters_its_configuration_hash_by_content(tmp_path):
    generations = tmp_path / "answers.jsonl"
    generations.write_text('{"case_id": "1"}\n', encoding="utf-8")
    path = _write(tmp_path, '[[subjects]]\nkind = "llm"\nname = "m"\ngenerations = "answers.jsonl"\n')
    before = load_audit(path).subjects[0]
    generations.write_text('{"case_id": "2"}\n', encoding="utf-8")
    after = load_audit(path).subjects[0]
    assert before.configuration["generations"]["path"] == "answers.jsonl"
    assert before.config_hash != after.config_hash and before.subject_id != after.subject_id


@pytest.mark.parametrize(
    "where",
    [
        'endpoint = "https://user:sk-live-secret-4242@api.example.com/v1"',
        'endpoint = "https://api.example.com/v1?key=sk-live-secret-4242"',
        'endpoint = "https://api.example.com/v1"\napi_key_env = "sk-live-secret-4242"',
    ],
)
def test_a_key_written_into_the_audit_is_refused_without_repeating_it(tmp_path, capsys, where):
    path = _write(tmp_path, f'[[subjects]]\nkind = "llm"\nname = "m"\n{where}\n')
    code, printed, error = run_main(["audit", str(path)], capsys)
    assert_refused(code, error, [str(path), "[[subjects]] #1"])
    assert "environment variable" in error and "sk-live-secret-4242" not in printed + error


def test_an_llm_with_an_endpoint_is_asked_to_recommend_and_to_answer_the_vignettes_when_its_key_is_set(
    tmp_path, monkeypatch
):
    monkeypatch.delenv("MY_KEY", raising=False)
    path = _write(
        tmp_path,
        '[[subjects]]\nkind = "llm"\nname = "served"\nendpoint = "http://127.0.0.1:9/v1"\nmodel = "m-1"\n'
        '[[subjects]]\nkind = "llm"\nname = "keyed"\nendpoint = "http://127.0.0.1:9/v1"\napi_key_env = "MY_KEY"\n',
    )
    planned, skipped = plan_audit(load_audit(path))
    assert [(p.study_type, [(s.label, name) for s, name in p.members]) for p in planned] == [
        ("silent bias", [("served", "served")]),
        ("recommendation bias", [("served", "m-1")]),
    ]
    vignettes, answers = planned[0].config["ingest"]
    assert (answers["source"], answers["base_url"], answers["model"], answers["name"], answers["api_key_env"]) == (
        "silent_bias_generate", "http://127.0.0.1:9/v1", "m-1", "served", "OPENAI_API_KEY",
    )  # fmt: skip
    assert (answers["path"], answers["vignette_set"]) == (vignettes["path"], vignettes["name"])
    (step,) = planned[1].config["ingest"]
    assert (step["source"], step["base_url"], step["models"], step["api_key_env"]) == (
        "recsys_experiment", "http://127.0.0.1:9/v1", ["m-1"], "OPENAI_API_KEY",
    )  # fmt: skip
    assert step["path"].endswith("studies/demo_data/recsys/pool_demo.csv")
    assert planned[1].config["study"]["data"] == "demo"
    reasons = {(s.subject.label, s.study_type): (s.status, s.reason) for s in skipped if s.status == "not run"}
    for study_type in ("recommendation bias", "silent bias"):
        assert reasons[("keyed", study_type)][1].endswith("set the environment variable MY_KEY (the key is"
                                                          " read from it only, never stored)")  # fmt: skip
    assert ("served", "silent bias") not in reasons
    monkeypatch.setenv("MY_KEY", "anything")
    planned, _ = plan_audit(load_audit(path))
    assert [[s.label for s, _ in p.members] for p in planned] == [["served", "keyed"], ["served", "keyed"]]
    for study in planned:  # the generated config is one `biaswh run` accepts
        load_study(write_config(study.config, tmp_path / f"{study.name}.toml"), check_files=True)
