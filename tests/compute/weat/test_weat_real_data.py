"""The classic tests on the real word2vec GoogleNews subset (../shared/data/weat/), stored and read back."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from biaswh.compute.weat.association import word_associations
from biaswh.compute.weat.coverage import Vocabulary
from biaswh.compute.weat.effect_size import weat_effect_size
from biaswh.compute.weat.runner import WeatSettings, run_weat_test
from biaswh.compute.weat.vectors import LanceVectors, read_embedding
from biaswh.ingest.weat.weat_tests import builtin_path, parse_weat_tests
from biaswh.ingest.weat.word_vectors import load_word_vectors
from biaswh.warehouse.database.connection import connect
from biaswh.warehouse.settings.home import HOME_VARIABLE
from tests.conftest import shared_file

pytestmark = pytest.mark.real_data
VECTORS = "weat/word2vec_gnews_subset_13013x300.npz"


@pytest.fixture(scope="module")
def embedding(tmp_path_factory):
    """The shared vectors ingested into a real warehouse (DuckDB + LanceDB), read back from LanceDB as the job does."""
    path = shared_file(VECTORS)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(HOME_VARIABLE, str(tmp_path_factory.mktemp("weat-real")))
        con = connect()
        result = load_word_vectors(con, path, name="word2vec_gnews_subset")
        table = con.execute("select lancedb_table from raw.weat_embeddings").fetchone()[0]
        con.close()
        words, matrix = read_embedding(table)
        vectors = LanceVectors(table)
        vocabulary = Vocabulary(vectors.words())
        assert list(vocabulary.index) == words
    assert result.rows == 13013 and matrix.shape == (13013, 300)
    return vocabulary, vectors


@pytest.fixture(scope="module")
def results(embedding):
    vocabulary, vectors = embedding
    name, records = parse_weat_tests(builtin_path("builtin:caliskan2017"))
    tests = list(dict.fromkeys(r["test"] for r in records))
    return {
        test: run_weat_test(
            [r for r in records if r["test"] == test],
            embedding="w2v",
            test_set=name,
            test=test,
            vocabulary=vocabulary,
            vectors=vectors,
            settings=WeatSettings(),
            study_seed=20170414,
        )
        for test in tests
    }


def test_every_classic_test_reports_its_coverage_and_missing_words(results):
    assert len(results) == 10
    for test, result in results.items():
        found = [m for m in result.matches if m.matched_word is not None]
        missing = [m.word for m in result.matches if m.match_kind == "missing"]
        listed = [m for m in result.matches if m.match_kind != "excluded_by_definition"]
        assert len(found) + len(missing) == len(listed), test
        assert result.status == "computed", (test, result.status_reason)
        assert 0.8 <= result.coverage <= 1.0
    # The case-sensitive vectors lack exactly these listed words.
    missing = {t: [m.word for m in r.matches if m.match_kind == "missing"] for t, r in results.items()}
    assert missing["weat9"] == ["short-term"]  # the paper's word2vec run used "short"
    assert all(not words for t, words in missing.items() if t in ("weat1", "weat3", "weat6", "weat7", "weat8"))


def test_weat1_flowers_are_pleasant_with_a_large_significant_effect(results):
    weat1 = results["weat1"]
    assert weat1.effect_size > 1.2 and weat1.ci_low > 0.8
    assert weat1.p_method == "randomised" and weat1.n_permutations == 100_000
    assert weat1.p_value < 1e-3


def test_small_tests_get_exact_p_values_that_match_scipy(results, embedding):
    vocabulary, vectors = embedding
    for test in ("weat6", "weat7", "weat8", "weat9", "weat10"):
        result = results[test]
        assert result.p_method == "exact"
        assert result.n_permutations == math.comb(result.n_target_x + result.n_target_y, result.n_target_x)
        s_x = [v for (role, _), v in result.associations.items() if role == "target_x"]
        s_y = [v for (role, _), v in result.associations.items() if role == "target_y"]
        reference = stats.permutation_test(
            (np.array(s_x), np.array(s_y)),
            lambda x, y, axis: x.sum(axis=axis) - y.sum(axis=axis),
            permutation_type="independent",
            alternative="greater",
            n_resamples=np.inf,
            vectorized=True,
        )
        assert result.p_value == pytest.approx(reference.pvalue, rel=1e-12), test


def test_effect_size_agrees_with_wefe_published_example(embedding):
    """WEFE's documented WEAT example runs on these very vectors (its test model): weat 0.4634388245467562,
    effect size 0.45076532408312986. WEFE divides by the population SD (ddof=0) where we, like Caliskan
    et al., use the sample SD (ddof=1): so d_wefe = d_ours * sqrt(N / (N - 1)) with N = |X| + |Y|. (WEFE's
    p-value also differs by design: it draws "permutations" with replacement and counts only strictly
    greater statistics, so it is not compared.)"""
    vocabulary, vectors = embedding
    rows = lambda words: vectors[[vocabulary.index[w] for w in words]]  # noqa: E731
    female = rows(["female", "woman", "girl", "sister", "she", "her", "hers", "daughter"])
    male = rows(["male", "man", "boy", "brother", "he", "him", "his", "son"])
    family = rows(["home", "parents", "children", "family", "cousins", "marriage", "wedding", "relatives"])
    career = rows(["executive", "management", "professional", "corporation", "salary", "office", "business", "career"])
    effect = weat_effect_size(word_associations(female, family, career), word_associations(male, family, career))
    assert effect.test_statistic == pytest.approx(0.4634388245467562, rel=1e-6)
    assert effect.effect_size * math.sqrt(16 / 15) == pytest.approx(0.45076532408312986, rel=1e-6)


def test_lower_cased_names_are_reported_as_insufficient_coverage_not_computed(embedding):
    """The original notebook's failure: names looked up in lower case find nothing in case-sensitive vectors."""
    vocabulary, vectors = embedding
    name, records = parse_weat_tests(builtin_path("builtin:caliskan2017"))
    lowered = [{**r, "word": r["word"].lower()} for r in records if r["test"] == "weat6"]
    result = run_weat_test(
        lowered,
        embedding="w2v",
        test_set=name,
        test="weat6",
        vocabulary=vocabulary,
        vectors=vectors,
        settings=WeatSettings(),
        study_seed=1,
    )
    assert result.status == "insufficient coverage"
    assert "target_x found" in result.status_reason and "target_y found" in result.status_reason
    assert result.effect_size is None and result.p_value is None
    recovered = run_weat_test(
        lowered,
        embedding="w2v",
        test_set=name,
        test="weat6",
        vocabulary=vocabulary,
        vectors=vectors,
        settings=WeatSettings(match_policy="casefold"),
        study_seed=1,
    )
    assert recovered.status == "computed" and recovered.effect_size > 1.0
    # Mostly case-folded back to the names; a few lower-case words exist as other words ("bill").
    kinds = [m.match_kind for m in recovered.matches if m.set_role == "target_x"]
    assert kinds.count("casefold") > kinds.count("exact")
