"""The embedding cache is the machine's: one folder outside the repository, shared by warehouses."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from biaswh.ingest.common.embedding_cache import embedding_cache_dir, shared_embedding_cache
from biaswh.warehouse.errors import UserError
from biaswh.warehouse.settings.home import REPOSITORY_ROOT


def test_the_default_folder_is_the_users_cache(monkeypatch, tmp_path):
    monkeypatch.delenv("BIASWH_EMBEDDING_CACHE")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert embedding_cache_dir() == (tmp_path / "xdg" / "biaswh" / "embeddings").resolve()
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert embedding_cache_dir() == (Path.home() / ".cache" / "biaswh" / "embeddings").resolve()


def test_a_folder_inside_the_repository_is_refused(monkeypatch):
    monkeypatch.setenv("BIASWH_EMBEDDING_CACHE", str(REPOSITORY_ROOT / ".warehouse" / "vectors"))
    with pytest.raises(UserError, match="BIASWH_EMBEDDING_CACHE=.* is inside the repository"):
        embedding_cache_dir()


class Counting:
    model_id = "counting"

    def __init__(self) -> None:
        self.asked: list[str] = []

    def embed(self, texts):
        self.asked += texts
        return np.array([[len(t), 1.0] for t in texts], dtype=np.float32)


def test_a_text_embedded_for_one_warehouse_is_not_embedded_for_another(monkeypatch, tmp_path):
    monkeypatch.setenv("BIASWH_EMBEDDING_CACHE", str(tmp_path / "machine"))
    provider = Counting()
    monkeypatch.setenv("BIASWH_HOME", str(tmp_path / "first"))
    shared_embedding_cache("counting").vectors_for(["ab", "c"], provider)
    monkeypatch.setenv("BIASWH_HOME", str(tmp_path / "second"))
    vectors, n_embedded = shared_embedding_cache("counting").vectors_for(["c", "ab", "new"], provider)
    assert n_embedded == 1 and sorted(provider.asked) == ["ab", "c", "new"]  # "new" alone the 2nd time
    assert vectors.shape == (3, 2) and not (tmp_path / "second").exists()
