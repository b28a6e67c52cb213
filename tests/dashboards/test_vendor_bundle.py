"""The Vega bundle: made once per machine and vl-convert version, copied into every site."""

from __future__ import annotations

import pytest
import vl_convert

from biaswh.dashboards.common import vendor
from biaswh.warehouse.errors import UserError
from biaswh.warehouse.settings.home import REPOSITORY_ROOT


def test_a_second_site_copies_the_machines_bundle_without_asking_vl_convert(tmp_path, monkeypatch):
    monkeypatch.setenv(vendor.CACHE_VARIABLE, str(tmp_path / "cache"))
    made = []
    real = vl_convert.javascript_bundle
    monkeypatch.setattr(vl_convert, "javascript_bundle", lambda: made.append(1) or real())

    vendor.write_bundle(tmp_path / "first")
    vendor.write_bundle(tmp_path / "second")

    assert made == [1]
    first = (tmp_path / "first" / "vendor" / vendor.BUNDLE_NAME).read_text(encoding="utf-8")
    second = (tmp_path / "second" / "vendor" / vendor.BUNDLE_NAME).read_text(encoding="utf-8")
    assert first == second == real()
    assert "vegaEmbed" in first
    assert (tmp_path / "second" / "vendor" / "VERSION").read_text() == vendor.bundle_version()
    assert [p.name for p in (tmp_path / "cache").iterdir()] == [vendor.cached_bundle().name]


def test_a_site_with_another_versions_bundle_gets_this_one(tmp_path, monkeypatch):
    monkeypatch.setenv(vendor.CACHE_VARIABLE, str(tmp_path / "cache"))
    site = tmp_path / "site"
    (site / "vendor").mkdir(parents=True)
    (site / "vendor" / vendor.BUNDLE_NAME).write_text("old bundle")
    (site / "vendor" / "VERSION").write_text("vl-convert-python 0.1")

    vendor.write_bundle(site)

    assert (site / "vendor" / vendor.BUNDLE_NAME).read_text(encoding="utf-8") == vendor.cached_bundle().read_text(
        encoding="utf-8"
    )
    assert (site / "vendor" / "VERSION").read_text() == vendor.bundle_version()


def test_the_cache_is_never_inside_the_checkout(tmp_path, monkeypatch):
    monkeypatch.setenv(vendor.CACHE_VARIABLE, str(REPOSITORY_ROOT / "vega-cache"))
    with pytest.raises(UserError, match="inside the repository"):
        vendor.write_bundle(tmp_path / "site")
    assert not (REPOSITORY_ROOT / "vega-cache").exists()


def test_a_cache_folder_that_cannot_be_made_still_gives_the_site_its_bundle(tmp_path, monkeypatch):
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the cache folder's parent would be")
    monkeypatch.setenv(vendor.CACHE_VARIABLE, str(blocker / "vega"))

    vendor.write_bundle(tmp_path / "site")

    assert (tmp_path / "site" / "vendor" / vendor.BUNDLE_NAME).read_text(
        encoding="utf-8"
    ) == vl_convert.javascript_bundle()
    assert blocker.is_file()
