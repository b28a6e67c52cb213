"""``biaswh ingest SOURCE``: a family's loader run by hand, as its study source runs it."""

from __future__ import annotations

from typing import Callable


def load_by_hand(load: Callable, path: str, **options):
    """Run ``load(con, path, **options)`` on the warehouse in one connection, print what it loaded
    and return it (the loader's :class:`biaswh.ingest.common.versions.IngestResult`).

    Options given as None are left out, so the loader's own defaults apply.
    """
    from biaswh.warehouse.database.connection import open_warehouse

    with open_warehouse() as con:
        result = load(con, path, **{name: value for name, value in options.items() if value is not None})
    print(result.message)
    return result
