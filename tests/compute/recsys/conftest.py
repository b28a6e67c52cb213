"""Turn simulated post rows into the long (item, feature) frame the recsys job reads from the mart; the
recsys study (tests/compute/recsys/recsys_study.py) run once for the modules that read its warehouse."""

from __future__ import annotations

import polars as pl
import pytest

from biaswh.ingest.recsys.simulate import FEATURE_TYPES
from tests.compute.recsys.recsys_study import run_recsys_study


def long_values(rows: list[dict]) -> pl.DataFrame:
    """The shape of ``marts.fct_recsys_post_values`` for simulated rows (as the ingest stores them)."""
    wide = pl.DataFrame(rows).with_columns(pl.col(f).cast(pl.String) for f in FEATURE_TYPES)
    long = wide.unpivot(
        index=["post_id", "dataset", "provider", "prompt_style", "trial", "selected"],
        on=list(FEATURE_TYPES),
        variable_name="feature",
        value_name="value",
    )
    feature_type = pl.col("feature").replace_strict(FEATURE_TYPES)
    return long.with_columns(
        feature_type.alias("feature_type"),
        (pl.col("selected") == 1).alias("selected"),
        pl.when(feature_type == "numerical").then(None).otherwise(pl.col("value")).alias("value_text"),
        pl.when(feature_type == "categorical")
        .then(None)
        .otherwise(pl.col("value").cast(pl.Float64))
        .alias("value_number"),
    )


@pytest.fixture(scope="session")
def to_long():
    return long_values


@pytest.fixture(scope="session")
def recsys_warehouse(tmp_path_factory):
    """(home, what the run printed) after the recsys study: a session fixture, so the pipeline and the
    hand-checked modules share one xdist group (tests/scheduling.py) and the study runs once."""
    return run_recsys_study(tmp_path_factory.mktemp("recsys"))
