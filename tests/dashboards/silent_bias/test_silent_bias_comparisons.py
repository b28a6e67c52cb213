"""The silent-bias page's between-model table: test, n, effect size, interval, adjusted p, verdict."""

from __future__ import annotations

import re

from biaswh.dashboards.silent_bias.comparisons import model_comparisons_section

COLUMNS = (
    "run_id varchar, vignette_set varchar, rule_set varchar, dimension varchar, model_a varchar, model_b varchar,"
    " n_silent_a bigint, n_biased_a bigint, rate_a double, n_silent_b bigint, n_biased_b bigint, rate_b double,"
    " difference double, ci_low double, ci_high double, test varchar, p_value double, family varchar,"
    " family_size bigint, p_adjusted double, adjustment varchar, is_significant boolean"
)
TEST = "Fisher's exact test (two-sided); Newcombe hybrid score interval of the difference"


def _cells(html: str) -> list[list[str]]:
    return [re.findall(r"<td[^>]*>(.*?)</td>", row) for row in re.findall(r"<tr>(<td.*?)</tr>", html, flags=re.S)]


def test_each_pair_of_models_reads_under_the_verdict_policy(con):
    con.execute(f"create schema analysis; create table analysis.silent_bias_model_comparisons ({COLUMNS})")
    con.executemany(
        "insert into analysis.silent_bias_model_comparisons values (?, 'v', 'word_boundary', ?, ?, ?, ?, ?, ?, ?,"
        " ?, ?, ?, ?, ?, ?, ?, 'the models of v', 3, ?, 'Holm', ?)",
        [
            (*row[:13], TEST, *row[13:])
            for row in [
                ("r1", "all", "a", "b", 18, 20, 0.9, 4, 20, 0.2, 0.7, 0.45, 0.85, 0.00001, 0.00003, True),
                ("r1", "all", "a", "c", 18, 20, 0.9, 15, 20, 0.75, 0.15, -0.08, 0.37, 0.41, 0.82, False),
                ("r1", "age", "a", "b", 2, 2, 1.0, 1, 2, 0.5, 0.5, -0.27, 0.91, 1.0, 1.0, False),
                ("r2", "all", "a", "b", 1, 2, 0.5, 1, 2, 0.5, 0.0, -0.6, 0.6, 1.0, 1.0, False),  # another run
            ]
        ],
    )
    html = "".join(model_comparisons_section(con, "r1"))
    assert "<b>1 of 2 between-model comparisons</b>" in html and "after Holm within each model set" in html
    overall = html.split("<details>")[0]
    assert _cells(overall) == [
        [
            "word_boundary",
            "a",
            "b",
            "20 / 20",
            "90.0% vs 20.0%",
            "+70.0 [+45.0, +85.0]",
            "Fisher&#x27;s exact test (two-sided)",
            "&lt; 0.001",
            "&lt; 0.001 (Holm, 3 tests)",
            "a higher",
        ],
        [
            "word_boundary",
            "a",
            "c",
            "20 / 20",
            "90.0% vs 75.0%",
            "+15.0 [-8.0, +37.0]",
            "Fisher&#x27;s exact test (two-sided)",
            "0.41",
            "0.82 (Holm, 3 tests)",
            "no evidence of a difference",
        ],
    ]
    (by_dimension,) = _cells(html.split("<details>")[1])
    assert by_dimension[0] == "age" and by_dimension[-1] == "no evidence of a difference"


def test_without_the_analysis_table_the_section_says_what_to_run(con):
    assert "Run the study's analysis step" in "".join(model_comparisons_section(con, "r1"))
