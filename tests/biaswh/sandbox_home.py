"""What `biaswh sql` must leave as it was in a warehouse folder (tests/biaswh/test_sql_sandbox*.py)."""

from __future__ import annotations

import hashlib
import os


def warehouse_state(home) -> tuple:
    """What must not change: the folder's entries and the warehouse file's sha256."""
    digest = hashlib.sha256((home / "warehouse.duckdb").read_bytes()).hexdigest()
    return sorted(os.listdir(home)), digest
