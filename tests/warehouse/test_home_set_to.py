"""``home_set_to``: BIASWH_HOME for the length of a block, then exactly as it was (set, or unset)."""

from __future__ import annotations

import os

import pytest

from biaswh.warehouse.settings.home import HOME_VARIABLE, home_set_to, warehouse_paths


@pytest.mark.parametrize("before", [None, "/srv/earlier"])
def test_the_home_is_set_inside_and_restored_after_even_on_an_error(before, tmp_path, monkeypatch):
    if before is None:
        monkeypatch.delenv(HOME_VARIABLE, raising=False)
    else:
        monkeypatch.setenv(HOME_VARIABLE, before)
    with pytest.raises(RuntimeError), home_set_to(tmp_path / "inner"):
        assert warehouse_paths().home == tmp_path / "inner"
        raise RuntimeError("the block failed")
    assert os.environ.get(HOME_VARIABLE) == before


def test_a_home_under_the_user_folder_is_expanded(monkeypatch):
    monkeypatch.setenv("HOME", "/home/someone")
    with home_set_to("~/warehouse"):
        assert os.environ[HOME_VARIABLE] == "/home/someone/warehouse"
