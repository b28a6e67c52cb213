"""The study config's ``[weat]`` table: the keys of compute/weat/runner.py ``WeatSettings``, the
test selection of compute/weat/steps.py and ``[weat.metrics]`` (compute/weat/metrics.py).
"""

from __future__ import annotations

from biaswh.warehouse.settings.config_schema import BOOLEAN, POSITIVE_INTEGER, STRING, STRINGS, Number, Table
from biaswh.warehouse.settings.study_schema import CONFIDENCE, RESAMPLES

WEAT = Table(
    {
        "embeddings": STRINGS,
        "test_sets": STRINGS,
        "tests": STRINGS,
        "match_policy": STRING,
        "min_coverage": Number(minimum=0, maximum=1, above=True),
        "min_words": POSITIVE_INTEGER,
        "balance": BOOLEAN,
        "exact_limit": Number(integer=True, minimum=1, maximum=100_000_000),
        # the randomised test's floor (compute/weat/runner.py WeatSettings)
        "n_permutations": Number(integer=True, minimum=100_000, maximum=100_000_000),
        "bootstrap_resamples": RESAMPLES,
        "bootstrap_method": STRING,
        "confidence_level": CONFIDENCE,
        # compute/weat/metrics.py MetricSettings: RND, RNSB, MAC, ECT, RIPA, word-set sensitivity
        "metrics": Table(
            {
                "names": STRINGS,
                "vectors": STRING,
                "ripa": STRING,
                "rnsb_splits": Number(integer=True, minimum=2, maximum=10_000),
                "bootstrap_resamples": RESAMPLES,
                "n_permutations": Number(integer=True, minimum=100, maximum=100_000_000),
                "exact_limit": Number(integer=True, minimum=1, maximum=100_000_000),
            }
        ),
    }
)
