"""The Vega, Vega-Lite and vega-embed JavaScript every chart page loads, from vl-convert-python.

Each site holds its own copy in ``vendor/`` (so it opens offline, from disk, and no chart inlines
the libraries). Generating the bundle costs vl-convert about 2.5 s, so it is made once per
machine and vl-convert version, in a cache folder beside the others (``BIASWH_VEGA_CACHE``,
default ``~/.cache/biaswh/vega``; never inside the checkout), and each new site copies it.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import vl_convert

from biaswh.warehouse.database.output_files import replacing, write_text_atomically
from biaswh.warehouse.settings.home import user_cache_dir

CACHE_VARIABLE = "BIASWH_VEGA_CACHE"
BUNDLE_NAME = "vega-bundle.js"


def bundle_version() -> str:
    """What the bundle is made by: the vl-convert-python version (each bundles its own Vega)."""
    version = getattr(vl_convert, "__version__", None)
    return f"vl-convert-python {version}" if version else "vl-convert"


def cached_bundle() -> Path:
    """The machine's bundle for this vl-convert version, made (atomically) when it is missing."""
    folder = user_cache_dir(CACHE_VARIABLE, "vega")
    path = folder / f"vega-bundle-{re.sub(r'[^A-Za-z0-9.]+', '-', bundle_version())}.js"
    if not path.exists():
        folder.mkdir(parents=True, exist_ok=True)
        write_text_atomically(path, vl_convert.javascript_bundle())
    return path


def write_bundle(site: Path) -> None:
    """Put the bundle in ``site/vendor/`` unless the one there is this version's."""
    vendor = site / "vendor"
    vendor.mkdir(parents=True, exist_ok=True)
    stamp, bundle = vendor / "VERSION", vendor / BUNDLE_NAME
    if bundle.exists() and stamp.exists() and stamp.read_text() == bundle_version():
        return
    try:
        with replacing(bundle) as temporary:
            shutil.copyfile(cached_bundle(), temporary)
    except OSError:  # the cache folder cannot be written (a full disk, a read-only home): made here
        write_text_atomically(bundle, vl_convert.javascript_bundle())
    write_text_atomically(stamp, bundle_version())
