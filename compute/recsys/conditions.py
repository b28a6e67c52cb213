"""Run the right pool-vs-recommended test for every feature × condition of a post set.

"Pool" is configurable. ``non_recommended`` (the original's choice) compares recommended
items with the items the model did not pick: two disjoint groups, as Welch's t-test and
the chi-square test assume. ``all_shown`` compares them with every item shown, recommended
ones included: it answers "how do picks differ from what was on offer", but the groups
overlap, so effect sizes shrink (roughly by the factor 1 - k/N for k picks out of N) and
the tests' independence assumption no longer holds; its p-values are conservative.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Literal

import polars as pl

from biaswh.compute.recsys.categorical import cramers_v_chi_square
from biaswh.compute.recsys.numerical import cohens_d_welch
from biaswh.compute.recsys.result import MIN_GROUP_SIZE, BiasTestResult

PoolDefinition = Literal["non_recommended", "all_shown"]
CONDITION_COLUMNS = ("dataset", "provider", "prompt_style")
# feature type -> (test, the value column it reads)
TESTS: dict[str, tuple[Callable[..., BiasTestResult], str]] = {
    "numerical": (cohens_d_welch, "value_number"),
    "categorical": (cramers_v_chi_square, "value_text"),
    "binary": (cramers_v_chi_square, "value_text"),
}


@dataclass(frozen=True)
class ConditionResult:
    """One feature's test under one condition (dataset × provider × prompt style, trials pooled)."""

    feature: str
    feature_type: str
    dataset: str
    provider: str
    prompt_style: str
    pool_definition: PoolDefinition
    result: BiasTestResult


def _run_test(feature_type: str, recommended: list, pool: list, *, min_group_size: int, yates: bool) -> BiasTestResult:
    test, _ = TESTS[feature_type]
    options = {"min_group_size": min_group_size}
    if test is cramers_v_chi_square:
        options["yates"] = yates
    try:
        return test(recommended, pool, **options)
    except Exception as exc:  # noqa: BLE001 - a failed computation is recorded, never hidden
        metric = "Cohen's d" if feature_type == "numerical" else "Cramér's V"
        return BiasTestResult(
            f"{metric} (error: {str(exc)[:20]})",
            0.0,
            1.0,
            "error",
            "not run",
            len(recommended),
            len(pool),
            message=f"{type(exc).__name__}: {exc}",
        )


def pool_vs_recommended(
    post_values: pl.DataFrame,
    *,
    pool: PoolDefinition = "non_recommended",
    min_group_size: int = MIN_GROUP_SIZE,
    yates: bool = True,
) -> list[ConditionResult]:
    """Test every feature under every condition of long post-level values.

    Parameters
    ----------
    post_values : one row per (item, feature) with columns ``dataset, provider,
        prompt_style, selected, feature, feature_type, value_text, value_number``.
    pool : ``non_recommended`` (the original) or ``all_shown``; see the module docstring.
    min_group_size : fewer values in either group gives "insufficient data".
    yates : Yates' continuity correction for 2×2 chi-square tables (the original's choice).
    """
    if pool not in ("non_recommended", "all_shown"):
        raise ValueError(f"unknown pool definition {pool!r}; expected non_recommended or all_shown")
    unknown = set(post_values["feature_type"].unique().to_list()) - set(TESTS)
    if unknown:
        raise ValueError(f"unknown feature type(s) {sorted(unknown)}; expected one of {sorted(TESTS)}")
    results = []
    keys = ["feature", "feature_type", *CONDITION_COLUMNS]
    for key, group in sorted(post_values.group_by(keys), key=lambda item: item[0]):
        feature, feature_type, dataset, provider, prompt_style = key
        column = TESTS[feature_type][1]
        recommended = group.filter(pl.col("selected"))[column].drop_nulls().to_list()
        compared = group if pool == "all_shown" else group.filter(~pl.col("selected"))
        result = _run_test(
            feature_type,
            recommended,
            compared[column].drop_nulls().to_list(),
            min_group_size=min_group_size,
            yates=yates,
        )
        results.append(ConditionResult(feature, feature_type, dataset, provider, prompt_style, pool, result))
    return results
