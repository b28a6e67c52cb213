"""The study config's ``[recsys]`` table (compute/recsys/steps.py) and ``[recsys_importance]``
(compute/recsys/steps_importance.py).
"""

from __future__ import annotations

from biaswh.warehouse.settings.config_schema import BOOLEAN, POSITIVE_INTEGER, STRING, Number, Table

RECSYS = Table({"pool": STRING, "p_adjust": STRING, "yates": BOOLEAN, "min_group_size": POSITIVE_INTEGER})
RECSYS_IMPORTANCE = Table(
    {
        "trees": Number(integer=True, minimum=1, maximum=10_000),
        "folds": Number(integer=True, minimum=2, maximum=100),
        "repeats": Number(integer=True, minimum=1, maximum=1_000),
    }
)
