"""The real-data and endpoint examples of README.md and docs/ run, in page order, in one warehouse.

The session runs them once (tests/real_data_examples.py): a module about one of the real studies
they run whole reads its run there. They read only the session's demo warehouse, not the demo
site, so under `make test` they run while the site's studies are still being built beside the
workers (tests/prebuilt.py), not after them with every test that reads the site.
"""

from __future__ import annotations

import pytest

from tests.docs.test_recorded_findings import assert_recorded

# The real studies the examples run whole: their findings must be the ones the docs state.
REAL_STUDIES_RUN_WHOLE = (
    "internal_docs_evaluation",
    "recsys_paper",
    "recsys_published",
    "silent_bias",
    "squad_dialect_seed_compatible",
    "squad_rule_variants",
    "weat_word2vec",
)


@pytest.mark.real_data
def test_every_real_data_and_endpoint_example_runs(real_data_examples, capsys):
    """Each ran as its page shows (the session fixture raises naming the first that did not)."""
    with capsys.disabled():
        print(f"\ndocs real-data and endpoint examples: {real_data_examples.count} run")
    assert real_data_examples.count >= 10
    assert_recorded(real_data_examples.home, REAL_STUDIES_RUN_WHOLE)
