"""The study's [weat] table: known options become settings, mistakes end with a clear message."""

from __future__ import annotations

from pathlib import Path

import pytest

from biaswh.compute.weat.steps import weat_settings
from biaswh.warehouse.errors import UserError
from biaswh.warehouse.runs.study import Study


def _study(options: dict) -> Study:
    return Study(
        path=Path("study.toml"), name="s", seed=1, ingest=[], jobs=["weat"], analysis=[], settings={"weat": options}
    )


def test_options_split_into_settings_and_selection():
    settings, selection = weat_settings(_study({"match_policy": "casefold", "balance": True, "tests": ["weat1"]}))
    assert (settings.match_policy, settings.balance, settings.min_coverage) == ("casefold", True, 0.8)
    assert selection == {"embeddings": None, "test_sets": None, "tests": ["weat1"]}


@pytest.mark.parametrize(
    "options, message",
    [
        ({"min_coverag": 0.5}, "unknown [weat] option(s): min_coverag"),
        ({"min_coverage": 1.5}, "min_coverage must be in (0, 1]"),
        ({"n_permutations": 1000}, "n_permutations must be at least 100000"),
        ({"match_policy": "fuzzy"}, "match_policy must be one of exact, lower, casefold"),
    ],
)
def test_bad_options_are_user_errors(options, message):
    with pytest.raises(UserError) as caught:
        weat_settings(_study(options))
    assert message in str(caught.value)
