"""The sources and corpus page read on a planted warehouse: the finding first, every source version
with its hash, documents and questions per split, the questions-per-document bars, the pairs' gold
mapping and the pairs and queries the reader must look at, and its notes before anything is built."""

from __future__ import annotations

import re

import duckdb

from biaswh.dashboards.common.downloads import capturing_tables
from biaswh.dashboards.retrieval.page import questions_per_document_chart, render
from tests.dashboards.page_reading import between, plain

HASH = "ab" * 32


def _warehouse(*, sources=True, corpus=True, pairs=True, unmapped=True, changed=True) -> duckdb.DuckDBPyConnection:
    con = duckdb.connect()
    con.execute("create schema marts")
    if sources:
        con.execute(
            "create table marts.dim_source_versions as select * from (values"
            f" ('squad', 'train', 2, 1200, '{HASH}', timestamp '2026-11-01 10:00:00'),"
            " ('dialect', 'pairs<b>', 1, 42, null, timestamp '2026-11-02 11:00:00'),"
            f" ('squad', 'train', 1, 1100, '{'cd' * 32}', timestamp '2026-10-01 09:00:00'))"
            " as t(dataset, source_name, source_version, n_rows, source_sha256, loaded_at)"
        )
    if not corpus:
        return con
    # dev: 2 documents (3 and 14 questions); train: 3 (1, none recorded, 10)
    con.execute(
        "create table marts.dim_corpus_documents as select * from (values"
        " ('dev', 3), ('dev', 14), ('train', 1), ('train', null), ('train', 10)) as t(split, n_questions)"
    )
    if pairs:
        statuses = ["mapped"] * 5 + (["no gold", "ambiguous"] if unmapped else [])
        rows = ", ".join(
            f"('p', '{pair_id}', {row}, 'context', 'dev', {row}, 'd{row}', null, '{status}')"
            for row, (pair_id, status) in enumerate(zip(["10", "2", "x1", "3", "1", "11", "9"], statuses))
        )
        con.execute(
            f"create table marts.fct_pair_gold_documents as select * from (values {rows}) as t(pair_set, pair_id,"
            " source_row, gold_kind, corpus_split, squad_idx, gold_source_doc_id, gold_query_id, mapping_status)"
        )
    texts = [("10", "Wut is it?", "What is it?"), ("2", "same", "same"), ("3", "b <i>", "b")] if changed else []
    con.execute(
        "create table marts.fct_query_variants (pair_set varchar, pair_id varchar, variant varchar,"
        " query_text_raw varchar, query_text varchar)"
    )
    for pair_id, raw, clean in texts:
        con.execute("insert into marts.fct_query_variants values ('p', ?, 'aae', ?, ?)", [pair_id, raw, clean])
    return con


def _rows(table_html: str) -> list[list[str]]:
    return [re.findall(r"<td>(.*?)</td>", row) for row in re.findall(r"<tr>(.*?)</tr>", table_html) if "<td>" in row]


def test_the_finding_leads_and_every_section_shows_the_planted_rows():
    with capturing_tables() as tables:
        html = render(_warehouse())
    assert html.startswith(
        '<p class="verdict"><b>5 corpus documents in 2 splits</b>; 5 of 7 paired queries mapped to their gold'
        " document.</p><h2>Loaded source versions</h2>"
    )
    sources = between(html, "<h2>Loaded source versions</h2>", "</table>")
    assert _rows(sources) == [
        ["dialect", "pairs&lt;b&gt;", "1", "42", '<span class="mono" title="">…</span>', "2026-11-02 11:00:00"],
        [
            "squad",
            "train",
            "1",
            "1,100",
            f'<span class="mono" title="{"cd" * 32}">{"cd" * 6}…</span>',
            "2026-10-01 09:00:00",
        ],
        [
            "squad",
            "train",
            "2",
            "1,200",
            f'<span class="mono" title="{HASH}">{"ab" * 6}…</span>',
            "2026-11-01 10:00:00",
        ],
    ]
    assert list(tables[0].data["source_sha256"])[1:] == ["cd" * 32, HASH]  # the download keeps the whole hash
    corpus = between(html, "<h2>Corpus documents (normalised, de-duplicated contexts)</h2>", "</table>")
    assert _rows(corpus) == [["dev", "2", "17"], ["train", "3", "11"]]
    assert tables[1].columns == ["split", "documents", "questions"]
    assert (
        '<p class="note">Documents with 10 or more questions are counted in the bar at 10; documents without'
        " questions (a corpus loaded without questions, e.g. a BEIR folder) in the bar at 0.</p>"
        "<h2>Paired queries mapped to gold documents</h2>" in html
    )
    spec = re.search(r'<script type="application/json" id="chart-\d+-spec">(.*?)</script>', html).group(1)
    bars = re.findall(r'\{"split": "(\w+)", "n_questions": (\d+), "n_documents": (\d+)\}', spec)
    assert sorted(bars) == sorted(
        [("dev", "3", "1"), ("dev", "10", "1"), ("train", "0", "1"), ("train", "1", "1"), ("train", "10", "1")]
    )
    mapping = between(html, "<h2>Paired queries mapped to gold documents</h2>", "</table>")
    assert _rows(mapping) == [
        ["p", "context", "ambiguous", "1"],
        ["p", "context", "mapped", "5"],
        ["p", "context", "no gold", "1"],
    ]
    assert "<h3>Pairs without a gold document (2 shown)</h3>" in html
    unmapped = between(html, "<h3>Pairs without a gold document (2 shown)</h3>", "</table>")
    assert [row[1] for row in _rows(unmapped)] == ["9", "11"]  # numeric pair ids in numeric order
    assert _rows(unmapped)[0] == ["p", "9", "6", "context", "dev", "6", "d6", "–", "ambiguous"]
    assert "<h3>Queries changed by the light clean-up (2 shown, up to 50)</h3>" in html
    changed = between(html, "<h3>Queries changed by the light clean-up (2 shown, up to 50)</h3>", "</table>")
    assert _rows(changed) == [["p", "3", "aae", "b &lt;i&gt;", "b"], ["p", "10", "aae", "Wut is it?", "What is it?"]]
    assert html.endswith("</script></div>")


def test_without_unmapped_pairs_or_changed_queries_the_page_says_so():
    html = render(_warehouse(unmapped=False, changed=False))
    assert "5 of 5 paired queries mapped" in html
    assert (
        "<h3>Pairs without a gold document (0 shown)</h3><p>No pair without a gold document: every pair mapped.</p>"
        in html
    )
    assert html.endswith("<h3>Queries changed by the light clean-up (0 shown, up to 50)</h3><p>No query changed.</p>")
    one = _warehouse(unmapped=False)
    one.execute("delete from marts.dim_corpus_documents where split = 'train' or n_questions = 14")
    one.execute("delete from marts.fct_pair_gold_documents where pair_id <> '1'")
    assert render(one).startswith(
        '<p class="verdict"><b>1 corpus document in 1 split</b>; 1 of 1 paired query mapped to their gold document.</p>'
    )


def test_before_a_build_the_page_says_what_to_run():
    assert render(duckdb.connect()) == (
        '<p class="note">Nothing loaded yet: <code>biaswh run studies/demo.toml</code> (or any study), then reload.</p>'
    )
    html = render(_warehouse(corpus=False))
    assert html.startswith("<h2>Loaded source versions</h2>")
    assert html.endswith('</div><p class="note">Run <code>biaswh build</code> to build the corpus.</p>')
    assert "pairs&lt;b&gt;" in plain(html)


def test_questions_per_document_bars_name_their_axes_and_splits():
    spec = questions_per_document_chart(
        duckdb.sql("select 'dev' as split, 3 as n_questions, 1 as n_documents").df()
    ).to_dict()
    assert spec["mark"]["type"] == "bar"
    encoding = spec["encoding"]
    assert encoding["x"] == {"field": "n_questions", "type": "ordinal", "title": "questions per document"}
    assert encoding["y"] == {"field": "n_documents", "type": "quantitative", "title": "documents"}
    assert encoding["color"] == {"field": "split", "type": "nominal", "title": "split"}
    assert encoding["xOffset"] == {"field": "split", "type": "nominal"}
    assert encoding["tooltip"] == [
        {"field": "split", "type": "nominal"},
        {"field": "n_questions", "type": "ordinal"},
        {"field": "n_documents", "type": "quantitative"},
    ]
    assert spec["title"] == "Questions per corpus document"
    assert (spec["width"], spec["height"]) == (600, 220)
