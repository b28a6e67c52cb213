"""The evaluation page's "Systems compared" section (analysis.evaluation_system_comparisons)."""

from __future__ import annotations

import re

from biaswh.dashboards.evaluation.system_comparisons import comparison_section


def _comparisons(con, rows) -> None:
    con.execute("create schema if not exists analysis")
    con.execute(
        "create table analysis.evaluation_system_comparisons (run_id varchar, metric varchar, k bigint,"
        " system_a varchar, system_b varchar, value_a double, value_b double, mean_difference double,"
        " difference_ci_low double, difference_ci_high double, n_paired_queries bigint, p_value double,"
        " p_holm double, is_significant boolean, test varchar, alpha double)"
    )
    con.executemany(
        "insert into analysis.evaluation_system_comparisons values ('s', 'ndcg', 10, ?, ?, ?, ?, ?, ?, ?, 6, ?, ?, ?,"
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
    # w1 leads, but its test against ours:bm25 finds no difference beyond noise: "highest observed" only
    assert verdict.startswith(
        "Highest observed nDCG@10: <b>w1:prod</b> (0.912) of 3 systems, not distinguishable beyond noise from 1:"
        " ours:&lt;b&gt;bm25&lt;/b&gt; (0.77). 2 of 3 pairs differ"
    )
    # largest difference first; a negative difference names the higher system first, its interval higher − lower
    assert "<b>w1:prod</b> over w2:prod by 0.301 (95% CI [0.200, 0.400], Holm-adjusted p &lt; 0.001)" in verdict
    assert "<b>ours:&lt;b&gt;bm25&lt;/b&gt;</b> over w2:prod by 0.159 (95% CI [0.050, 0.300]," in verdict
    assert "<b>bm25</b>" not in html  # system names are escaped everywhere
    cells = re.findall(r"<tr>(<td>.*?)</tr>", html)
    assert [re.findall(r"<td>(.*?)</td>", c)[:2] for c in cells] == [
        ["w1:prod", "w2:prod"],
        ["w2:prod", "ours:&lt;b&gt;bm25&lt;/b&gt;"],
        ["w1:prod", "ours:&lt;b&gt;bm25&lt;/b&gt;"],
    ]
    assert "<td>0.912</td><td>0.611</td><td>0.301</td><td>[0.200, 0.400]</td><td>&lt; 0.001</td>" in cells[0]
    assert "difference A − B" in html and "Holm-adjusted" in html  # human headers


def test_without_a_significant_pair_the_finding_says_so(con):
    _comparisons(con, [("a:bm25", "b:bm25", 0.5, 0.49, 0.01, -0.02, 0.04, 0.4, 0.4, False)])
    html = comparison_section(con, "s")
    assert "No pair of systems differs beyond noise" in html and "p 0.40, a:bm25 vs b:bm25" in html
    assert comparison_section(con, "another series") == ""


def test_p_at_the_floor_of_six_queries_says_so_and_untestable_pairs_say_so(con):
    _comparisons(
        con,
        [
            ("w1:prod", "w2:prod", 1.0, 0.625, 0.375, 0.37, 0.38, 0.03125, 0.0625, False),
            ("w1:prod", "ours:bm25", 1.0, 0.77, None, None, None, None, None, False),
        ],
    )
    con.execute("alter table analysis.evaluation_system_comparisons add column status varchar")
    con.execute("alter table analysis.evaluation_system_comparisons add column min_p double")
    con.execute("alter table analysis.evaluation_system_comparisons add column n_nonzero bigint")
    con.execute(
        "update analysis.evaluation_system_comparisons set status = case when p_value is null then 'not testable'"
        " else 'tested' end, min_p = case when p_value is not null then 0.03125 end, n_nonzero = 6"
    )
    html = comparison_section(con, "s")
    # p (at the smallest a 6-query exact test can give) and Holm p, never "< 0.001"
    assert "<td>0.031 (smallest possible)</td><td>0.062</td>" in html
    assert "6 paired queries: no p below 0.031 is possible." in html
    assert "<td>not testable</td><td>not testable</td>" in html
    assert "Holm-adjusted over the 1 tested pairs" in html
    assert "smallest Holm-adjusted p 0.062, w1:prod vs w2:prod" in html


def test_the_note_names_each_test_once_with_its_count_and_no_seed(con):
    _comparisons(
        con,
        [
            ("a:bm25", "b:bm25", 0.5, 0.4, 0.1, 0.05, 0.15, 0.001, 0.002, True),
            ("a:bm25", "c:bm25", 0.5, 0.45, 0.05, 0.01, 0.09, 0.01, 0.02, True),
            ("b:bm25", "c:bm25", 0.4, 0.45, -0.05, -0.09, -0.01, 0.02, 0.02, True),
        ],
    )
    con.execute("alter table analysis.evaluation_system_comparisons add column ci_method varchar")
    con.execute(
        "update analysis.evaluation_system_comparisons set ci_method = 'BCa bootstrap, 2,000 resamples, seed 1' ||"
        " ascii(system_b), test = case when system_b = 'c:bm25'"
        " then 'sign-flip randomization (monte carlo B=10000, seed ' || ascii(system_a) || ')'"
        " else 'sign-flip randomization (exact enumeration)' end"
    )
    html = comparison_section(con, "s")
    verdict = re.search(r'<p class="verdict">(.*?)</p>', html).group(1)
    assert verdict.startswith("Highest nDCG@10: <b>a:bm25</b> (0.5), above each of the other 2 systems beyond noise.")
    note = re.search(r'<p class="note">(.*?)</p>', html).group(1)
    assert "95% interval (BCa bootstrap, 2,000 resamples);" in note
    assert (
        "from sign-flip randomization (exact enumeration) for 1 pairs; sign-flip randomization (monte carlo"
        " B = 10,000) for 2 pairs; each pair is seeded on its own, its seeds in the CSV, Holm-adjusted" in note
    )
    assert "seed 1" not in note
    # one test for every pair, no seed: named once, and no seeds mentioned
    con.execute(
        "update analysis.evaluation_system_comparisons set test = 'sign-flip randomization (exact enumeration)',"
        " ci_method = 'BCa bootstrap (degenerate)'"
    )
    note = re.search(r'<p class="note">(.*?)</p>', comparison_section(con, "s")).group(1)
    assert "from sign-flip randomization (exact enumeration), Holm-adjusted" in note and "seed" not in note


def test_a_run_judged_by_benjamini_hochberg_says_so_everywhere(con):
    _comparisons(
        con,
        [
            ("a:bm25", "b:bm25", 0.5, 0.4, 0.1, 0.05, 0.15, 0.01, None, True),
            ("a:bm25", "c:bm25", 0.5, 0.45, 0.05, -0.01, 0.09, 0.04, None, False),
        ],
    )
    con.execute("alter table analysis.evaluation_system_comparisons add column p_adjusted double")
    con.execute("alter table analysis.evaluation_system_comparisons add column adjustment varchar")
    con.execute(
        "update analysis.evaluation_system_comparisons set adjustment = 'Benjamini-Hochberg',"
        " p_adjusted = case when system_b = 'b:bm25' then 0.02 else 0.04 end"
    )
    html = comparison_section(con, "s")
    assert "Benjamini-Hochberg-adjusted p 0.020)" in html  # the finding
    assert "Benjamini-Hochberg-adjusted over the 2 tested pairs" in html  # the note
    assert "<td>0.010</td><td>0.020</td><td>yes</td>" in html and "<td>0.040</td><td>0.040</td><td>no</td>" in html
    assert "Holm" not in html
    # the download holds the stored rows as they are (p_holm empty, no value made up)
    assert "b:bm25,0.5,0.4,0.1,0.05,0.15,6,0.01,,True,paired bootstrap,0.05,0.02,Benjamini-Hochberg" in html


def test_the_highest_system_is_called_highest_only_when_its_own_tests_say_so(con):
    """The best system as system B of its pairs: a significant negative A − B counts for it; a
    significant pair between two others does not; one pair short of beating every system is named."""
    _comparisons(
        con,
        [  # best: c (0.9); c beats a (c is B, A − B < 0), not b; b vs a significant (no claim about c)
            ("a:bm25", "c:bm25", 0.5, 0.9, -0.4, -0.5, -0.3, 0.001, 0.003, True),
            ("b:bm25", "c:bm25", 0.85, 0.9, -0.05, -0.12, 0.02, 0.2, 0.2, False),
            ("a:bm25", "b:bm25", 0.5, 0.85, -0.35, -0.45, -0.25, 0.001, 0.003, True),
        ],
    )
    verdict = re.search(r'<p class="verdict">(.*?)</p>', comparison_section(con, "s")).group(1)
    assert verdict.startswith(
        "Highest observed nDCG@10: <b>c:bm25</b> (0.9) of 3 systems, not distinguishable beyond noise from 1:"
        " b:bm25 (0.85). "
    )
    con.execute("update analysis.evaluation_system_comparisons set is_significant = true")
    verdict = re.search(r'<p class="verdict">(.*?)</p>', comparison_section(con, "s")).group(1)
    assert verdict.startswith("Highest nDCG@10: <b>c:bm25</b> (0.9), above each of the other 2 systems beyond noise.")
