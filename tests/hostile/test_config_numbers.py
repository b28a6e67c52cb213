"""Hostile numbers: every numeric study parameter and CLI option refused before any work.

One row per case: a shipped demo config with one value changed (TOML's ``nan`` and ``inf``
included), run through ``biaswh run`` in-process; the exit code is 2, stderr names the key's
path, and the warehouse is not even created (the check runs before the run row). The CLI
options are refused by argparse in one line. Two cases run the real command in a subprocess.
"""

from __future__ import annotations

import re

import pytest

from biaswh.cli import main
from biaswh.pipeline import load_plugins
from tests.conftest import DEMO_DATA, REPOSITORY_ROOT, run_cli

STUDIES = REPOSITORY_ROOT / "studies"
NAN_WEIGHTS = ("demo.toml", "retrieval.hybrid", "weights", "[nan, inf]")
# A recommendation experiment whose numbers are fine (its files exist; nothing is ever sent).
EXPERIMENT = (
    'source = "recsys_experiment"\npath = "demo_data/squad_demo.json"\nfeatures_path = "demo_data/squad_demo.json"\n'
    'base_url = "http://127.0.0.1:9/v1"\nmodels = ["m"]\n'
)
RULE_VARIANTS = 'source = "rule_variants"\npath = "generated"\n'

# (base config, table, key, TOML value, fragment of the one line that names the key path)
CASES = [
    NAN_WEIGHTS + ("[retrieval.hybrid] weights item 1 must be a number >= 0 (not NaN or infinite), got nan",),
    ("demo.toml", "retrieval.hybrid", "weights", "[-1, 1]", "[retrieval.hybrid] weights item 1 must be a number >= 0"),
    ("demo.toml", "retrieval.hybrid", "weights", "[0, 0]", "[retrieval.hybrid] weights must be two non-negative"),
    ("demo.toml", "retrieval.hybrid", "rrf_k", "-1", "[retrieval.hybrid] rrf_k must be a number >= 0, got -1"),
    ("demo.toml", "retrieval.hybrid", "rrf_k", "inf", "[retrieval.hybrid] rrf_k must be a number >= 0 (not NaN"),
    ("demo.toml", "retrieval.hybrid", "sweep_weights", "[1.5]", "sweep_weights item 1 must be a number in [0, 1]"),
    ("demo.toml", "retrieval.hybrid", "sweep_rrf_k", "[nan]", "[retrieval.hybrid] sweep_rrf_k item 1 must be"),
    ("demo.toml", "retrieval.bm25", "k1", "nan", "[retrieval.bm25] k1 must be a number >= 0 (not NaN or infinite)"),
    ("demo.toml", "retrieval.bm25", "k1", "-0.1", "[retrieval.bm25] k1 must be a number >= 0, got -0.1"),
    ("demo.toml", "retrieval.bm25", "b", "1.5", "[retrieval.bm25] b must be a number in [0, 1], got 1.5"),
    ("demo.toml", "retrieval.bm25", "epsilon", "-inf", "[retrieval.bm25] epsilon must be a number >= 0"),
    ("demo.toml", "retrieval", "depth", "2147483648", "[retrieval] depth must be an integer in [1, 10000]"),
    ("demo.toml", "retrieval", "depth", "0", "[retrieval] depth must be an integer in [1, 10000], got 0"),
    ("demo.toml", "retrieval", "depth", "-5", "[retrieval] depth must be an integer in [1, 10000], got -5"),
    ("demo.toml", "retrieval", "drop_documents_fraction", "1.0", "drop_documents_fraction must be a number in [0, 1)"),
    ("demo.toml", "retrieval", "drop_documents_fraction", "nan", "[retrieval] drop_documents_fraction must be"),
    ("demo.toml", "retrieval", "retrievers", '["bm52"]', "unknown bm52 (did you mean 'bm25'?)"),
    ("demo.toml", "retrieval", "timing", '"bacth"', "timing must be 'batch' or 'per_query', got 'bacth'"),
    ("demo.toml", "retrieval.embedding", "batch_size", "0", "[retrieval.embedding] batch_size must be an integer"),
    ("demo.toml", "retrieval.embedding", "max_retries", "-1", "[retrieval.embedding] max_retries must be an integer"),
    ("demo.toml", "retrieval.embedding", "backoff_seconds", "nan", "[retrieval.embedding] backoff_seconds must be"),
    ("demo.toml", "retrieval.embedding", "timeout_seconds", "0", "timeout_seconds must be a number in (0, 86400]"),
    ("demo.toml", "retrieval.ann", "partitions", "0", "[retrieval.ann] partitions must be an integer >= 1, got 0"),
    ("demo.toml", "retrieval.ann", "probes", "-1", "[retrieval.ann] probes must be an integer >= 1, got -1"),
    ("demo.toml", "study", "seed", "-1", "[study] seed must be an integer >= 0, got -1"),
    ("demo.toml", "dialect", "bootstrap_resamples", "0", "[dialect] bootstrap_resamples must be an integer in [100"),
    ("demo.toml", "parameters", "dialect_highlight_k", "[0]", "[parameters] dialect_highlight_k item 1 must be"),
    ("demo.toml", "parameters", "dialect_highlight_k", "[1, 50]", "dialect_highlight_k: 50 beyond [retrieval] depth"),
    ("demo.toml", "parameters", "snippet_chars", "-1", "[parameters] snippet_chars must be an integer >= 0"),
    (
        "demo.toml",
        "parameters",
        "recsys_published_alpha",
        "nan",
        "[parameters] recsys_published_alpha must be a number in (0, 1)",
    ),
    ("demo.toml", "parameters", "recsys_marker_one_star", "2.0", "[parameters] recsys_marker_one_star must be"),
    ("demo.toml", "verdicts", "alpha", "0", "[verdicts] alpha must be a number in (0, 0.5], got 0"),
    ("demo.toml", "verdicts", "alpha", "0.6", "[verdicts] alpha must be a number in (0, 0.5], got 0.6"),
    ("demo_evaluation.toml", "evaluation", "sample", "0", "[evaluation] sample must be an integer >= 1, got 0"),
    ("demo_evaluation.toml", "evaluation", "tune_share", "1.0", "[evaluation] tune_share must be a number in (0, 1)"),
    ("demo_evaluation.toml", "evaluation", "tune_share", "nan", "[evaluation] tune_share must be a number in (0, 1)"),
    ("demo_evaluation.toml", "evaluation", "bootstrap_resamples", "-1", "[evaluation] bootstrap_resamples must be"),
    ("demo_evaluation.toml", "evaluation", "alpha", "0", "[evaluation] alpha must be a number in (0, 1), got 0"),
    ("demo_evaluation.toml", "evaluation", "alpha", "inf", "[evaluation] alpha must be a number in (0, 1)"),
    ("demo_evaluation.toml", "evaluation.compare", "k", "0", "[evaluation.compare] k must be an integer in [1, 10000]"),
    ("demo_evaluation.toml", "evaluation.compare", "k", "7", "[evaluation.compare] k = 7 is not one of the cutoffs"),
    ("demo_evaluation.toml", "evaluation.compare", "metric", '"ndgc"', "unknown metric 'ndgc' (did you mean 'ndcg'?)"),
    ("demo_evaluation.toml", "parameters", "evaluation_k", "[1, 50]", "evaluation_k: 50 beyond the depth 20"),
    ("demo_evaluation.toml", "parameters", "evaluation_overlap_k", "0", "[parameters] evaluation_overlap_k must be"),
    ("demo_evaluation.toml", "parameters", "evaluation_select_k", "10001", "[parameters] evaluation_select_k must"),
    ("demo_weat.toml", "weat", "min_coverage", "0", "[weat] min_coverage must be a number in (0, 1], got 0"),
    ("demo_weat.toml", "weat", "min_coverage", "nan", "[weat] min_coverage must be a number in (0, 1]"),
    ("demo_weat.toml", "weat", "min_words", "0", "[weat] min_words must be an integer >= 1, got 0"),
    ("demo_weat.toml", "weat", "exact_limit", "0", "[weat] exact_limit must be an integer in [1, 100000000]"),
    ("demo_weat.toml", "weat", "n_permutations", "10", "[weat] n_permutations must be an integer in [100000"),
    ("demo_weat.toml", "weat", "bootstrap_resamples", "0", "[weat] bootstrap_resamples must be an integer in [100"),
    ("demo_weat.toml", "weat", "confidence_level", "1", "[weat] confidence_level must be a number in (0, 1), got 1"),
    ("demo_silent_bias.toml", "silent_bias", "confidence", "nan", "[silent_bias] confidence must be a number in (0"),
    ("demo_silent_bias.toml", "silent_bias", "confidence", "0", "[silent_bias] confidence must be a number in (0, 1)"),
    ("demo_recsys.toml", "recsys", "min_group_size", "0", "[recsys] min_group_size must be an integer >= 1, got 0"),
    ("demo_recsys.toml", "recsys_importance", "trees", "0", "[recsys_importance] trees must be an integer in [1,"),
    ("demo_recsys.toml", "recsys_importance", "folds", "1", "[recsys_importance] folds must be an integer in [2, 100]"),
    ("demo_recsys.toml", "recsys_importance", "repeats", "0", "[recsys_importance] repeats must be an integer in [1"),
    ("demo.toml", "[[ingest]]", RULE_VARIANTS, "sample = 0", '#3 (source = "rule_variants"): sample must be an'),
    ("demo.toml", "[[ingest]]", RULE_VARIANTS, "sample_seed = -1", "sample_seed must be an integer >= 0, got -1"),
    ("demo.toml", "[[ingest]]", RULE_VARIANTS, "rate = 1.5", "rate must be a number in [0, 1], got 1.5"),
    ("demo.toml", "[[ingest]]", EXPERIMENT, "n_posts = 0", "n_posts must be an integer in [1, 100000], got 0"),
    ("demo.toml", "[[ingest]]", EXPERIMENT, "k = 0", '#3 (source = "recsys_experiment"): k must be an integer >= 1'),
    ("demo.toml", "[[ingest]]", EXPERIMENT, "k = 20\nn_posts = 10", "k = 20 is more than n_posts = 10"),
    ("demo.toml", "[[ingest]]", EXPERIMENT, "trials = 0", "trials must be an integer in [1, 100000], got 0"),
    ("demo.toml", "[[ingest]]", EXPERIMENT, "temperature = 3", "temperature must be a number in [0, 2], got 3"),
    ("demo.toml", "[[ingest]]", EXPERIMENT, "concurrency = 0", "concurrency must be an integer in [1, 256], got 0"),
    ("demo.toml", "[[ingest]]", EXPERIMENT, "max_retries = -1", "max_retries must be an integer in [0, 100], got -1"),
    ("demo.toml", "[[ingest]]", EXPERIMENT, "backoff_seconds = inf", "backoff_seconds must be a number in [0, 3600]"),
    ("demo.toml", "[[ingest]]", EXPERIMENT, "timeout_seconds = -1", "timeout_seconds must be a number in (0, 86400]"),
]


def with_value(text: str, table: str, key: str, value: str) -> str:
    """``text`` with ``key = value`` set in ``[table]`` (the table added when absent); ``[[ingest]]``
    appends a step whose body is ``key`` plus ``value``."""
    if table == "[[ingest]]":
        return f"{text}\n[[ingest]]\n{key}{value}\n"
    header = re.search(rf"^\[{re.escape(table)}\][^\n]*\n", text, flags=re.M)
    if header is None:
        return f"{text}\n[{table}]\n{key} = {value}\n"
    end = re.search(r"^\[", text[header.end() :], flags=re.M)
    body_end = header.end() + (end.start() if end else len(text) - header.end())
    body = re.sub(rf"^{re.escape(key)}\s*=[^\n]*\n", "", text[header.end() : body_end], flags=re.M)
    return text[: header.end()] + f"{key} = {value}\n" + body + text[body_end:]


@pytest.fixture(scope="module", autouse=True)
def plugins():
    load_plugins()  # once: the registered config checks


def _config(tmp_path, base: str, table: str, key: str, value: str):
    (tmp_path / "demo_data").symlink_to(DEMO_DATA)  # the copy's relative paths find the demo files
    path = tmp_path / base
    path.write_text(with_value((STUDIES / base).read_text(encoding="utf-8"), table, key, value), encoding="utf-8")
    return path


@pytest.mark.parametrize(("base", "table", "key", "value", "fragment"), CASES, ids=lambda v: str(v)[:40])
def test_a_bad_number_is_refused_before_any_work(base, table, key, value, fragment, tmp_path, warehouse_home, capsys):
    path = _config(tmp_path, base, table, key, value)
    assert main(["run", str(path)]) == 2
    error = capsys.readouterr().err
    assert fragment in error and f"biaswh: error: {path}: " in error and "Traceback" not in error, error
    assert not (warehouse_home / "warehouse.duckdb").exists()  # checked before the warehouse is opened


@pytest.mark.parametrize("base", sorted({case[0] for case in CASES}))
def test_the_unchanged_demo_configs_pass_the_same_checks(base):
    from biaswh.warehouse.runs.study import load_study

    assert load_study(STUDIES / base, check_files=True).name  # so each row above fails by its change alone


CLI_CASES = [
    (["generate", "v.json", "--model", "m", "--base-url", "u", "--out", "o", "--timeout", "-1"], "--timeout"),
    (["generate", "v.json", "--model", "m", "--base-url", "u", "--out", "o", "--concurrency", "0"], "--concurrency"),
    (["generate", "v.json", "--model", "m", "--base-url", "u", "--out", "o", "--max-retries", "-2"], "--max-retries"),
    (["generate", "v.json", "--model", "m", "--base-url", "u", "--out", "o", "--backoff", "nan"], "--backoff"),
    (["generate", "v.json", "--model", "m", "--base-url", "u", "--out", "o", "--temperature", "inf"], "--temperature"),
    (["generate", "v.json", "--model", "m", "--base-url", "u", "--out", "o", "--top-p", "0"], "--top-p"),
    (["generate", "v.json", "--model", "m", "--base-url", "u", "--out", "o", "--max-tokens", "0"], "--max-tokens"),
    (["generate", "v.json", "--model", "m", "--base-url", "u", "--out", "o", "--seed", "-1"], "--seed"),
    (["generate", "v.json", "--model", "m", "--base-url", "u", "--out", "o", "--limit", "0"], "--limit"),
    (["run", "s.toml", "--limit", "-3"], "--limit"),
    (["peek", "s.toml", "--pair", "1", "-k", "2147483648"], "-k"),
    (["search", "q", "--study", "s.toml", "-k", "0"], "-k"),
    (["variants", "rules", "--squad", "s.json", "--sample", "0"], "--sample"),
    (["variants", "rules", "--squad", "s.json", "--sample-seed", "-1"], "--sample-seed"),
    (["variants", "rules", "--squad", "s.json", "--seed", "x"], "--seed"),
    (["variants", "rules", "--squad", "s.json", "--rate", "nan"], "--rate"),
    (["variants", "rules", "--pairs", "p.csv", "--show", "-1"], "--show"),
    (
        ["variants", "llm", "--squad", "s", "--model", "m", "--base-url", "u", "--out", "o", "--timeout", "0"],
        "--timeout",
    ),
    (
        ["variants", "llm", "--squad", "s", "--model", "m", "--base-url", "u", "--out", "o", "--concurrency", "0"],
        "--conc",
    ),
    (["variants", "llm", "--squad", "s", "--model", "m", "--base-url", "u", "--out", "o", "--top-p", "2"], "--top-p"),
]


@pytest.mark.parametrize(("argv", "option"), CLI_CASES, ids=lambda v: " ".join(v)[-40:] if isinstance(v, list) else v)
def test_a_bad_numeric_option_is_one_line_and_exit_2(argv, option, warehouse_home, capsys):
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    error = capsys.readouterr().err
    assert exit_.value.code == 2 and len(error.strip().splitlines()) == 1, error
    assert f"argument {option}" in error and "must be" in error, error
    assert not warehouse_home.exists()


def test_three_mistakes_are_reported_at_once_and_nothing_is_written(tmp_path, warehouse_home, capsys):
    from biaswh.warehouse.database.connection import open_warehouse

    with open_warehouse() as con:  # an existing warehouse: the refused run must add no row to it
        before = con.execute("select count(*) from raw.runs").fetchone()[0]
    text = with_value((STUDIES / "demo.toml").read_text(encoding="utf-8"), "study", "descripton", '"typo"')
    text = with_value(text, "retrieval", "retrievers", '["bm52", "dense"]')
    text = with_value(text, "retrieval.hybrid", "weights", "[nan, 0.5]")
    (tmp_path / "demo_data").symlink_to(DEMO_DATA)
    path = tmp_path / "three.toml"
    path.write_text(text, encoding="utf-8")
    assert main(["run", str(path)]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 3 and all(line.startswith(f"biaswh: error: {path}: ") for line in lines), lines
    assert "[study] unknown key 'descripton' (did you mean 'description'?)" in lines[0]
    assert "[retrieval.hybrid] weights item 1 must be a number >= 0 (not NaN or infinite), got nan" in lines[1]
    assert "[retrieval] retrievers: unknown bm52 (did you mean 'bm25'?)" in lines[2]
    with open_warehouse(read_only=True) as con:
        assert con.execute("select count(*) from raw.runs").fetchone()[0] == before
        assert con.execute("select count(*) from raw.source_versions").fetchone()[0] == 0


@pytest.mark.parametrize(
    ("argv", "fragment"),
    [
        (["generate", "v.json", "--model", "m", "--base-url", "u", "--out", "o", "--timeout", "-1"], "--timeout"),
        (None, "[retrieval.hybrid] weights item 1 must be a number >= 0 (not NaN or infinite), got nan"),
    ],
)
def test_the_real_command_refuses_in_one_line(argv, fragment, tmp_path, warehouse_home):
    argv = argv or ["run", str(_config(tmp_path, *NAN_WEIGHTS))]
    completed = run_cli(*argv, home=warehouse_home, check=False)
    assert completed.returncode == 2 and fragment in completed.stderr, completed.stderr
    lines = completed.stderr.strip().splitlines()  # one line per mistake: [nan, inf] holds two
    assert all(line.startswith("biaswh") and " error: " in line for line in lines), lines
    assert len(lines) == (1 if argv[0] == "generate" else 2) and not (warehouse_home / "warehouse.duckdb").exists()


def test_a_family_alpha_contradicting_the_verdict_policy_is_refused_before_any_work(tmp_path, warehouse_home, capsys):
    from biaswh.warehouse.runs.study import load_study

    (tmp_path / "demo_data").symlink_to(DEMO_DATA)
    text = with_value((STUDIES / "demo_evaluation.toml").read_text(encoding="utf-8"), "verdicts", "alpha", "0.01")
    repeated, contradicted = tmp_path / "repeated.toml", tmp_path / "contradicted.toml"
    repeated.write_text(with_value(text, "evaluation", "alpha", "0.01"), encoding="utf-8")
    contradicted.write_text(with_value(text, "evaluation", "alpha", "0.05"), encoding="utf-8")
    assert load_study(repeated, check_files=True).settings["evaluation"]["alpha"] == 0.01  # repeating it is fine
    assert main(["run", str(contradicted)]) == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert lines == [
        f"biaswh: error: {contradicted}: [evaluation] alpha = 0.05 differs from [verdicts] alpha = 0.01:"
        " a study has one verdict policy; set alpha in [verdicts] only"
    ], lines
    assert not (warehouse_home / "warehouse.duckdb").exists()
