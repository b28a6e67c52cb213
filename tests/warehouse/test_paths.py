"""Names users choose become file names only through safe_file_stem, and stay in their folder."""

import json

import pytest

from biaswh.analysis.silent_bias.steps import export_metrics
from biaswh.ingest.recsys.simulate import write_simulated_files
from biaswh.warehouse.settings.paths import safe_file_stem

UNSAFE = [
    "a/../b",
    "../../escape",
    "/etc/passwd",
    "..",
    ".",
    "",
    "a\\..\\b",
    ".hidden",
    "tab\there",
    "x" * 300,
    "a b/c",
]


@pytest.mark.parametrize("name", ["demo", "silent_bias-v2", "set.2024", "A_b-9"])
def test_a_safe_name_is_kept(name):
    assert safe_file_stem(name) == name


@pytest.mark.parametrize("name", UNSAFE)
def test_an_unsafe_name_becomes_one_plain_file_name(name, tmp_path):
    stem = safe_file_stem(name)
    assert stem and "/" not in stem and "\\" not in stem and not stem.startswith(".") and len(stem) <= 89
    assert (tmp_path / f"{stem}.json").resolve().parent == tmp_path.resolve()
    assert stem == safe_file_stem(name)  # stable across runs


def test_names_that_clean_to_the_same_text_get_different_stems():
    assert len({safe_file_stem(n) for n in ["a/b", "a_b", "a\\b", "a b", "a//b"]}) == 5


def _rate(vignette_set: str, rule_set: str = "word_boundary") -> dict:
    return {
        "dimension": "all",
        "vignette_set": vignette_set,
        "rule_set": rule_set,
        "model": "m",
        "silent_bias_rate": 0.5,
        "n_biased": 2,
        "n_silent": 1,
        "n_answered": 4,
        "n_cases": 4,
        "ci_low": 0.1,
        "ci_high": 0.9,
        "ci_method": "wilson",
        "confidence": 0.95,
        "run_id": "r",
    }


def test_the_silent_bias_export_stays_in_its_folder_whatever_the_set_is_called(tmp_path):
    out_dir = tmp_path / "home" / "exports"
    written = export_metrics([_rate(name) for name in UNSAFE] + [_rate("plain", "a/../../rule")], out_dir)
    assert len(written) == len(UNSAFE) + 1
    assert sorted(written) == sorted(out_dir.iterdir())  # each its own file, all inside exports/
    assert [p for p in tmp_path.rglob("*") if p.is_file() and p.parent != out_dir] == []
    assert (out_dir / f"silent_bias_metrics__{safe_file_stem('a/../b')}__word_boundary.json").exists()
    assert (
        json.loads((out_dir / f"silent_bias_metrics__plain__{safe_file_stem('a/../../rule')}.json").read_text())["m"][
            "n_silent"
        ]
        == 1
    )


def test_a_simulation_named_like_a_path_writes_inside_its_folder(tmp_path):
    folder = tmp_path / "generated" / "recsys"
    posts, features = write_simulated_files(
        folder,
        name="a/../../b",
        seed=1,
        datasets=("twitter",),
        providers=("openai",),
        prompt_styles=("general",),
        pool_size=6,
        n_recommended=2,
    )
    assert posts.parent == folder and features.parent == folder
    assert sorted(p.name for p in tmp_path.rglob("*.csv")) == sorted([posts.name, features.name])
