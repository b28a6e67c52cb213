"""The study config's ``[evaluation]`` table: the keys compute/evaluation/steps.py and
analysis/evaluation/steps.py read (registered by compute/evaluation/steps.py); each run may
carry its own ``[retrieval]`` table.
"""

from __future__ import annotations

from biaswh.compute.evaluation.live_systems import LIVE
from biaswh.compute.retrieval.config_section import RETRIEVAL
from biaswh.warehouse.settings.config_schema import (
    BOOLEAN,
    FILE,
    OPEN_SHARE,
    POSITIVE_INTEGER,
    STRING,
    ArrayOfTables,
    Table,
)
from biaswh.warehouse.settings.study_schema import DEPTH, RESAMPLES

EVALUATION = Table(
    {
        "query_set": STRING,
        "pair_set": STRING,
        "sample": POSITIVE_INTEGER,
        "tune_share": OPEN_SHARE,
        "bootstrap_resamples": RESAMPLES,
        "alpha": OPEN_SHARE,
        "thresholds": FILE,
        "compare": Table({"metric": STRING, "k": DEPTH}),
        "runs": ArrayOfTables(
            Table(
                {
                    "label": STRING,
                    "baseline": BOOLEAN,
                    "retrieval": RETRIEVAL,
                    "run_file": FILE,
                    "system": STRING,
                    "live": LIVE,
                },
                required=("label",),
            )
        ),
    }
)
