"""The recommendation-bias page's figures of a result set read against the warehouse: each chart's title
in page order, and every row it draws (each aggregation level, verdict and "as published" views apart,
each prompt style's conditions, the condition intervals) recomputed with the test's own SQL."""

from __future__ import annotations

import pytest

from biaswh.dashboards.common.html import capturing_charts
from biaswh.dashboards.recsys import page
from biaswh.dashboards.recsys.charts import MARKER_LEVELS
from tests.dashboards import page_reading
from tests.dashboards.page_reading import run_of, writable_copy

pytestmark = pytest.mark.dbt
site_fixture = page_reading.read_only_site  # the "warehouse" its tests take
RULE = "significant after Holm within the result set, α = 0.05"  # studies/demo_recsys.toml's policy
PUBLISHED = "as published (raw p < 0.05)"
WHERE = "run_id = ? and result_source = 'computed' and result_set = 'synthetic_demo'"
LEVEL_TITLES = {"prompt": "prompt style", "dataset": "dataset", "model": "model (provider)"}
CELL = ("feature", "group_value", "dataset", "provider", "prompt_style", "value", "bias_mean", "share_significant")
CELL += ("n_conditions", "marker", "normalized_bias_mean", "signed_normalized_bias_mean")


def _cells(con, run_id: str, level: str, *, share: str, marker: str) -> list[tuple]:
    return con.execute(
        "select feature, group_value, dataset, provider, prompt_style, normalized_bias_mean, bias_mean,"
        f" coalesce({share}, 0), n_conditions, coalesce({marker}, ''), normalized_bias_mean,"
        f" signed_normalized_bias_mean from marts.agg_recsys_bias where {WHERE} and level = ?"
        " order by feature, group_value",
        [run_id, level],
    ).fetchall()


def _drawn(figure, *extra: str) -> list[tuple]:
    rows = [row for values in figure.to_dict().get("datasets", {}).values() for row in values]
    return [tuple(row[c] for c in CELL + extra) for row in rows]


def _label(value: float, marker: str) -> str:
    return f"{value:.2f}{marker}"


def test_each_chart_of_the_result_set_draws_its_levels_rows_under_its_title(warehouse):
    con = warehouse
    run_id = run_of(con, "demo_recsys")
    with capturing_charts() as figures:
        page._result_set_section(con, run_id, "computed", "synthetic_demo", synthetic=True)
    prompts = [p for (p,) in con.execute(
        f"select distinct prompt_style from marts.fct_recsys_pool_vs_recommended where {WHERE} order by 1", [run_id]
    ).fetchall()]  # fmt: skip
    assert [f.to_dict()["title"] for f in figures] == [
        f"Overall signed bias (grey: at most half the conditions {RULE}; Cramér's V has no sign)",
        *(f"By {t} (mean signed bias; grey: at most half the conditions {RULE})" for t in LEVEL_TITLES.values()),
        *(f"Prompt style: {p} (signed bias; grey: not {RULE})" for p in prompts),
        "Condition-level effects of the numerical features with their intervals",
        f"Overall bias, {PUBLISHED} (min-max normalised, fully aggregated)",
        *(
            f"By {t}, {PUBLISHED} (mean min-max normalised bias; * > 50 %, ** > 60 %, *** > 75 % of conditions)"
            for t in LEVEL_TITLES.values()
        ),
        *(f"Prompt style: {p}, {PUBLISHED} (min-max normalised bias; * = p < 0.05)" for p in prompts),
    ]
    verdicts = {"share": "share_significant_adjusted", "marker": "marker_adjusted"}
    as_paper = {"share": "share_significant", "marker": "marker"}
    n = len(prompts)
    signed, intervals, paper = figures[: 4 + n], figures[4 + n], figures[5 + n :]
    for views, columns, label_of in ((signed, verdicts, "signed_label"), (paper, as_paper, "label")):
        overall = _cells(con, run_id, "all", **columns)
        assert _drawn(views[0], "significance") == [(*c, MARKER_LEVELS[c[9]]) for c in overall]
        for figure, level in zip(views[1:4], LEVEL_TITLES, strict=True):
            value = 11 if label_of == "signed_label" else 5
            expected = [(*c, _label(c[value], c[9])) for c in _cells(con, run_id, level, **columns)]
            assert _drawn(figure, label_of) == expected, level
        conditions = _cells(con, run_id, "dataset_model_prompt", **columns)
        for figure, prompt in zip(views[4:], prompts, strict=True):
            value = 11 if label_of == "signed_label" else 5
            expected = [
                (*c, f"{c[2]} · {c[3]}", _label(c[value], "*" if c[7] > 0 else ""))
                for c in conditions
                if c[4] == prompt
            ]
            assert _drawn(figure, "dataset_model", label_of) == expected, prompt
    rows = con.execute(
        "select feature, dataset || ' · ' || provider || ' · ' || prompt_style as condition, hedges_g, ci_low, ci_high,"
        " p_value, p_value_adjusted, significant_adjusted from marts.fct_recsys_pool_vs_recommended"
        f" where {WHERE} and ci_low is not null and ci_high is not null order by feature, condition",
        [run_id],
    ).fetchall()
    spec = intervals.to_dict()
    assert [layer["encoding"]["color"]["title"] for layer in spec["spec"]["layer"][1:]] == [RULE, RULE]  # the legend
    drawn = [row for values in spec["datasets"].values() for row in values]
    assert [tuple(r.values()) for r in drawn] == [(*r[:7], "significant" if r[7] else "not significant") for r in rows]


def test_the_prompt_styles_heatmaps_are_in_name_order_whatever_order_the_rows_come_in(demo_site):
    con = writable_copy(demo_site, "recsys")
    run_id = run_of(con, "demo_recsys")
    first_feature, first_prompt = con.execute(
        f"select min(feature), min(prompt_style) from marts.agg_recsys_bias where {WHERE}"
        " and level = 'dataset_model_prompt'",
        [run_id],
    ).fetchone()
    con.execute(  # the first feature's rows no longer start with the first prompt style
        "delete from marts.agg_recsys_bias where level = 'dataset_model_prompt' and feature = ? and prompt_style = ?",
        [first_feature, first_prompt],
    )
    with capturing_charts() as figures:
        page._result_set_section(con, run_id, "computed", "synthetic_demo", synthetic=True)
    titles = [f.to_dict()["title"] for f in figures if f.to_dict()["title"].startswith("Prompt style: ")]
    prompts = [t.removeprefix("Prompt style: ").split(" ")[0].rstrip(",") for t in titles]
    assert prompts[0] == first_prompt and prompts == sorted(prompts[: len(prompts) // 2]) * 2
