"""The evaluation page's "Systems compared" section (analysis.retrieval_system_comparisons)."""

from __future__ import annotations

import re

from dashboards.system_comparisons import comparison_section


def _comparisons(con, rows) -> None:
    con.execute("create schema if not exists analysis")
    con.execute(
        "create table analysis.retrieval_system_comparisons (run_id varchar, metric varchar, k bigint,"
        " system_a varchar, system_b varchar, value_a double, value_b double, mean_difference double,"
        " difference_ci_low double, difference_ci_high double, n_paired_queries bigint, p_value double,"
        " p_holm double, is_significant boolean, test varchar, alpha double)"
    )
    con.executemany(
        "insert into analysis.retrieval_system_comparisons values ('s', 'ndcg', 10, ?, ?, ?, ?, ?, ?, ?, 6, ?, ?, ?,"
        " 'paired bootstrap', 0.05)",
        rows,
    )


def test_the_section_leads_with_the_best_system_and_the_significant_pairs(con):
    _comparisons(
        con,
        [  # system_a, system_b, value_a, value_b, difference, ci_low, ci_high, p, p_holm, significant
            ("w1:prod", "w2:prod", 0.912345, 0.61111, 0.301235, 0.2, 0.4, 0.0, 0.0, True),
            ("w1:prod", "ours:<b>bm25</b>", 0.912345, 0.77, 0.142345, -0.01, 0.3, 0.04, 0.08, False),
            ("w2:prod", "ours:<b>bm25</b>", 0.61111, 0.77, -0.15889, -0.3, -0.05, 0.01, 0.03, True),
        ],
    )
    html = comparison_section(con, "s")
    verdict = re.search(r'<p class="verdict">(.*?)</p>', html).group(1)
    assert verdict.startswith("Highest nDCG@10: <b>w1:prod</b> (0.912) of 3 systems. 2 of 3 pairs differ")
    # largest difference first; a negative difference names the higher system first
    assert "<b>w1:prod</b> over w2:prod by 0.301 (A − B 95% CI [0.2, 0.4], Holm-adjusted p &lt; 0.001)" in verdict
    assert "<b>ours:&lt;b&gt;bm25&lt;/b&gt;</b> over w2:prod by 0.159" in verdict
    assert "<b>bm25</b>" not in html  # system names are escaped everywhere
    cells = re.findall(r"<tr>(<td>.*?)</tr>", html)
    assert [re.findall(r"<td>(.*?)</td>", c)[:2] for c in cells] == [
        ["w1:prod", "w2:prod"],
        ["w2:prod", "ours:&lt;b&gt;bm25&lt;/b&gt;"],
        ["w1:prod", "ours:&lt;b&gt;bm25&lt;/b&gt;"],
    ]
    assert "<td>0.912</td><td>0.611</td><td>0.301</td><td>[0.2, 0.4]</td><td>&lt; 0.001</td>" in cells[0]
    assert "difference A − B" in html and "Holm-adjusted" in html  # human headers


def test_without_a_significant_pair_the_finding_says_so(con):
    _comparisons(con, [("a:bm25", "b:bm25", 0.5, 0.49, 0.01, -0.02, 0.04, 0.4, 0.4, False)])
    html = comparison_section(con, "s")
    assert "No pair of systems differs beyond noise" in html and "p 0.4, a:bm25 vs b:bm25" in html
    assert comparison_section(con, "another series") == ""
