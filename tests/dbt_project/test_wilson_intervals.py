"""The one Wilson macro (``wilson_bound``) against statsmodels, on every rate of the demo warehouse
that carries one: dialect recall@k and the recsys share of significant conditions."""

from __future__ import annotations

import duckdb
import pytest
from statsmodels.stats.proportion import proportion_confint

pytestmark = pytest.mark.dbt

RATES = {
    "marts.agg_dialect_recall_at_k": ("n_hits", "n_queries", "recall_ci_low", "recall_ci_high"),
    "marts.agg_recsys_effect_sizes": (
        "n_significant",
        "n_conditions",
        "share_significant_ci_low",
        "share_significant_ci_high",
    ),
}


@pytest.mark.parametrize("relation", sorted(RATES))
def test_wilson_bounds_equal_statsmodels(demo_site, relation):
    successes, trials, low, high = RATES[relation]
    with duckdb.connect(str(demo_site.parent / "warehouse.duckdb"), read_only=True) as con:
        rows = con.execute(f"select distinct {successes}, {trials}, {low}, {high} from {relation}").fetchall()
    assert rows, f"{relation} is empty in the demo warehouse"
    for n_successes, n_trials, got_low, got_high in rows:
        want_low, want_high = proportion_confint(n_successes, n_trials, alpha=0.05, method="wilson")
        assert got_low == pytest.approx(want_low, abs=1e-12) and got_high == pytest.approx(want_high, abs=1e-12)
