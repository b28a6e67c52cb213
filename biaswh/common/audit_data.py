"""The data each study type of an audit runs on: the families' demo data, or their real data.

``[audit] data = "demo"`` (the default) runs every study on the data the repository ships
(``studies/demo_data/``, demo data, not research data). ``data = "real"`` runs them on the real
data the repository's real studies use, from the folder ``[audit] real_data`` names (the shared
data beside a checkout, never copied into the repository): the 200 SAE/AAE pairs over SQuAD v1.1
train for retrievers (as ``studies/squad_dialect.toml``), Caliskan et al.'s WEAT 1-10 for
embeddings (as ``studies/weat_word2vec.toml``), and the 58 clinical vignettes for LLMs (as
``studies/silent_bias.toml``). Each function returns the settings its study config takes.
"""

from __future__ import annotations

from pathlib import Path

from biaswh.warehouse.settings.home import REPOSITORY_ROOT

DEMO_DATA = REPOSITORY_ROOT / "studies" / "demo_data"
# The demo texts' all-MiniLM-L6-v2 vectors, as the retrieval provider and the WEAT sentence encoder
# store them (python -m biaswh.common.demo_vectors writes them): a demo run embeds only new texts.
DEMO_RETRIEVAL_VECTORS = DEMO_DATA / "embeddings" / "retrieval-all-MiniLM-L6-v2.parquet"
DEMO_SENTENCE_VECTORS = DEMO_DATA / "embeddings" / "weat-sentences-all-MiniLM-L6-v2.parquet"
MINILM_ENCODER_PATHS = ("hf:sentence-transformers/all-MiniLM-L6-v2", "hf:all-MiniLM-L6-v2")
# The real data's files, relative to [audit] real_data.
SQUAD_TRAIN = "squad-v1.1/train.parquet"
DIALECT_PAIRS = "dialect-pairs/aave_poc_dataset_20250927-193921.json"
MINILM_VECTORS = "embeddings/all-MiniLM-L6-v2.parquet"
VIGNETTES = "silent-bias/biased_vignettes_58.json"
REAL_FILES = (SQUAD_TRAIN, DIALECT_PAIRS, MINILM_VECTORS, VIGNETTES)


def described(data: str) -> str:
    """What a study config's description says about its data."""
    return "real data" if data == "real" else "demo data, not research data"


def dialect_data(data: str, real_data: Path | None) -> tuple[list[dict], dict, dict]:
    """The dialect study's ingest steps, retrieval settings and run parameters."""
    if data == "real":
        ingest = [
            {"source": "squad", "path": str(real_data / SQUAD_TRAIN), "split": "train"},
            {
                "source": "pairs",
                "path": str(real_data / DIALECT_PAIRS),
                "variants": {"sae": "sae_query", "aae": "aave_query"},
                "cleanup": True,
            },
        ]
        retrieval = {
            "depth": 100,
            "tokenizer": {"pattern": "[a-z0-9]+", "lowercase": True},  # the original study's tokenizer
            # the contexts' and pairs' MiniLM vectors, computed once: nothing is embedded again
            "precomputed": [str(real_data / MINILM_VECTORS)],
        }
        return ingest, retrieval, {"dialect_highlight_k": [5, 10, 20], "dialect_reference_variant": "sae"}
    ingest = [
        {"source": "squad", "path": str(DEMO_DATA / "squad_demo.json"), "split": "train", "name": "demo_train"},
        {
            "source": "pairs",
            "path": str(DEMO_DATA / "dialect_pairs_demo.csv"),
            "name": "dialect_pairs_demo",
            "variants": {"sae": "sae_query", "aae": "aave_query"},
            "squad_split": "demo_train",
            "cleanup": True,
        },
    ]
    retrieval = {"depth": 20, "precomputed": [str(DEMO_RETRIEVAL_VECTORS)]}
    return ingest, retrieval, {"dialect_highlight_k": [1, 3, 5], "dialect_reference_variant": "sae"}


def weat_data(data: str) -> tuple[list[dict], list[str], dict]:
    """The WEAT study's test-set ingest steps, their names (a sentence encoder's words) and settings."""
    tests = [{"source": "weat_tests", "path": "builtin:caliskan2017"}]
    settings = {"min_coverage": 0.8, "min_words": 2, "n_permutations": 100000, "bootstrap_resamples": 2000}
    if data == "real":  # word2vec's vocabulary is case-sensitive ("John", "Darnell"): no case changes
        return tests, ["caliskan2017"], {"match_policy": "exact", **settings}
    tests.append({"source": "weat_tests", "path": str(DEMO_DATA / "weat" / "demo_user_tests.yaml")})
    return tests, ["caliskan2017", "demo_user_tests"], {"match_policy": "casefold", **settings}


def sentence_vectors(data: str, encoder_path: str) -> list[str]:
    """The precomputed sentence vectors a sentence-encoder subject's WEAT step imports: the demo's
    for the local MiniLM on demo data, else none (a real study's sentences are embedded once, then cached)."""
    return [str(DEMO_SENTENCE_VECTORS)] if data != "real" and encoder_path in MINILM_ENCODER_PATHS else []


def silent_bias_data(data: str, real_data: Path | None) -> dict:
    """The silent-bias study's vignette ingest step (its ``name`` is the vignette set)."""
    if data == "real":
        return {"source": "silent_bias_vignettes", "path": str(real_data / VIGNETTES), "name": "biased_vignettes_58"}
    path = DEMO_DATA / "silent_bias" / "vignettes_demo.json"
    return {"source": "silent_bias_vignettes", "path": str(path), "name": "silent_bias_demo"}


# An audit's recommendation experiment per LLM: 2 prompt styles x 10 trials, 20 posts shown, top 5
# asked for (40 requests a model; studies/demo_recsys.toml's analysis settings).
RECOMMENDATION_TRIALS = {"prompt_styles": ["general", "neutral"], "n_posts": 20, "k": 5, "trials": 10}


def recsys_pool() -> tuple[str, str]:
    """The demo pool of posts and its feature table (no real pool ships: a subject may name its own)."""
    folder = DEMO_DATA / "recsys"
    return str(folder / "pool_demo.csv"), str(folder / "pool_demo_features.csv")
