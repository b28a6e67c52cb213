"""A run's data kind: what its config stated, else inferred once for runs recorded before the key."""

from __future__ import annotations

import json

import pytest

from biaswh.warehouse.runs.data_kind import data_kind_of


@pytest.mark.parametrize(
    ("parameters", "name", "kind"),
    [
        ({"data": "synthetic", "name": "demo_x"}, "demo_x", "synthetic"),  # stated wins over the name
        ({"data": "real"}, "demo", "real"),
        (json.dumps({"config": "/somewhere/studies/demo_weat.toml"}), "weat_copy", "demo"),  # older run: its config
        ({"description": "Demo: tiny corpus (demo data, not research data)"}, "any_corpus", "demo"),
        ({}, "Demo_Copy", "demo"),
        ({"data": "made-up"}, "squad_dialect", "real"),  # an unknown stated value is not trusted
        ("free text of an early run", "squad_dialect", "real"),
        (None, None, "real"),
    ],
)
def test_a_run_is_labelled_from_its_config_or_inferred_once(parameters, name, kind):
    assert data_kind_of(parameters, name) == kind
