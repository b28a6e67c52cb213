"""Turn simulated post rows into the long (item, feature) frame the recsys job reads from the mart."""

from __future__ import annotations

import polars as pl
import pytest

from biaswh.ingest.recsys.simulate import FEATURE_TYPES


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
