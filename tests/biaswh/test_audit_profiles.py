"""The pages of ``biaswh audit``'s subjects: the subjects page links a profile per audited subject,
a profile has a line per dimension (interval, verdict, data, links) and says what was not measured,
and an embedding's profile leads each test with d (the small audit of tests/biaswh/conftest.py)."""

from __future__ import annotations

import re

from biaswh.common.audit_config import load_audit
from tests.biaswh.small_audit import query


def _page(home, file_name: str) -> str:
    return (home / "site" / file_name).read_text(encoding="utf-8")


def _cells(html: str) -> list[list[str]]:
    """The rows of a page's first table as plain cell texts."""
    from html import unescape

    body = html.split("<tbody>", 1)[1].split("</tbody>", 1)[0]
    return [
        [unescape(re.sub(r"<[^>]+>", "", cell)).strip() for cell in re.findall(r"<td>(.*?)</td>", row, flags=re.S)]
        for row in re.findall(r"<tr>(.*?)</tr>", body, flags=re.S)
    ]


def test_each_audited_subject_has_a_profile_linked_from_the_subjects_page(audited):
    from biaswh.dashboards.common.page_subjects import subject_file

    home, config, *_ = audited
    listed = _page(home, "subjects.html")
    for subject in load_audit(config).subjects:
        assert f'href="{subject_file(subject.subject_id)}"' in listed
        assert (home / "site" / subject_file(subject.subject_id)).is_file()


def test_a_profile_has_a_line_per_dimension_with_interval_verdict_data_and_links_and_says_what_was_not_measured(
    audited,
):
    from biaswh.dashboards.common.page_subjects import subject_file

    home, config, *_ = audited
    bm25, vectors, stand_in, *_ = load_audit(config).subjects
    (run_id,) = query(home, "select run_id from raw.runs where name = 'small_audit__dialect'")[0]
    (p_adjusted, ci_low, ci_high) = query(
        home,
        "select p_adjusted, ci_low, ci_high from subject_findings where subject_id = ?"
        " order by p_adjusted, abs(effect) desc, finding limit 1",
        [bm25.subject_id],
    )[0]
    html = _page(home, subject_file(bm25.subject_id))
    assert "Demo data" in html.split("</h1>")[0]  # the page's badge: demo data, labelled
    lines = _cells(html)
    assert len(lines) == 5  # the dialect gap (aae vs sae), and the four retrieval-quality metrics
    study_type, dimension, effect, shown_interval, shown_p, verdict, data, study_and_run = lines[0]
    assert (study_type, data, study_and_run) == (
        "dialect retrieval bias",
        "demo data",
        f"small_audit__dialectrun {run_id[:12]}",
    )
    assert dimension.startswith("dialect: aae vs sae") and "effect: recall gap, points" in dimension
    assert shown_interval.startswith("[") and verdict.startswith(("no evidence (", "significant ("))
    assert "of 3 significant" in verdict and shown_p != "–" and p_adjusted is not None and ci_low < ci_high
    for link in ("studies/small_audit__dialect.html", f"runs/{run_id}.html"):
        assert f'href="{link}"' in html and (home / "site" / link).is_file()
    # the retrieval-quality lines: the pairs' own questions, each metric at 10 with its interval, untested
    quality = {re.match(r"retrieval quality: ([a-z]+?)\1@10 ", line[1]).group(1): line for line in lines[1:]}
    assert sorted(quality) == ["mrr", "ndcg", "precision", "recall"]
    for line in quality.values():
        assert line[0] == "retrieval evaluation" and line[5] == "descriptive" and line[6] == "demo data"
        assert "@10 on squad_questions_demo_train (" in line[1] and line[3].startswith("[")
        assert line[7].startswith("small_audit__evaluation")
    # the three study types that are not a retriever's, each with why
    missing = _cells(html.split("<h2>Not measured</h2>", 1)[1])
    assert [row[:2] for row in missing] == [
        ["recommendation bias", "does not apply"],
        ["silent bias", "does not apply"],
        ["word-embedding association (WEAT)", "does not apply"],
    ]
    llm = _cells(_page(home, subject_file(stand_in.subject_id)).split("<h2>Not measured</h2>", 1)[1])
    assert [row[:2] for row in llm] == [
        ["dialect retrieval bias", "does not apply"],
        ["recommendation bias", "not run"],
        ["retrieval evaluation", "does not apply"],
        ["word-embedding association (WEAT)", "does not apply"],
    ]
    assert "OpenAI-compatible endpoint" in llm[1][2]


def test_an_embeddings_profile_leads_each_test_with_d_and_folds_the_other_metrics_beneath_it_labelled(audited):
    from biaswh.dashboards.common.page_subjects import subject_file

    home, config, *_ = audited
    vectors = next(s for s in load_audit(config).subjects if s.kind == "embedding")
    html = _page(home, subject_file(vectors.subject_id))
    lines = _cells(html)
    dimensions = query(
        home,
        "select count(distinct dimension), count(*) filter (where is_headline),"
        " count(*) filter (where not is_headline and verdict in ('significant', 'no evidence'))"
        " from subject_findings where subject_id = ?",
        [vectors.subject_id],
    )[0]
    assert len(lines) == dimensions[0] == dimensions[1]  # one line per dimension, one d per dimension
    assert all("effect size d (WEAT" in line[1] for line in lines)  # d heads every line
    folded = re.findall(r'<details class="beside"><summary>(.*?)</summary>(.*?)</details>', html, flags=re.S)
    assert folded and all(re.match(r"\d+ other metrics? on (their|its) own scales?", summary) for summary, _ in folded)
    beside = "".join(items for _, items in folded)
    for label in ("RND", "MAC", "ECT", "RIPA", "RNSB", "d over resampled word sets"):
        assert f": {label}," in beside or f": {label} " in beside, label
    assert beside.count("scale: ") == beside.count("<li>") > dimensions[2]
