"""The per-feature chart: one row per rule, all rules on top, interval and effect, a facet per k."""

from __future__ import annotations

import pandas as pd

from biaswh.dashboards.dialect.charts_features import feature_effects_chart


def _effects() -> pd.DataFrame:
    rows = []
    for k in (5, 10):
        for rule, delta, is_all in (
            ("aae_rules", 0.8, True),
            ("g_dropping", 5.0, False),
            ("copula_deletion", 0.2, False),
        ):
            rows.append(
                {
                    "rule": rule,
                    "k": k,
                    "n_pairs": 100,
                    "delta_pp": delta,
                    "ci_low": delta - 1,
                    "ci_high": delta + 1,
                    "p_adjusted": 0.01 if rule == "g_dropping" else 0.5,
                    "significant": rule == "g_dropping",
                    "detectable_gap_pp": 2.0,
                    "is_all_rules": is_all,
                }
            )
    return pd.DataFrame(rows)


def test_one_row_per_rule_with_its_interval_and_a_facet_per_k():
    spec = feature_effects_chart(_effects(), legend="Benjamini-Hochberg p < 0.01 (within each k's rules)").to_dict()
    assert spec["facet"]["column"]["field"] == "k" and spec["facet"]["column"]["type"] == "ordinal"
    _, interval, point = spec["spec"]["layer"]
    assert point["encoding"]["y"]["sort"] == ["aae_rules", "g_dropping", "copula_deletion"]
    assert point["encoding"]["y"]["type"] == "nominal"
    assert (interval["encoding"]["x"]["field"], interval["encoding"]["x2"]["field"]) == ("ci_low", "ci_high")
    assert point["encoding"]["x"]["field"] == "delta_pp" and point["encoding"]["x"]["type"] == "quantitative"
    # the legend names the policy the page was judged by, not a fixed "Holm p < 0.05"
    assert point["encoding"]["color"]["title"] == "Benjamini-Hochberg p < 0.01 (within each k's rules)"
