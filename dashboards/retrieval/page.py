"""Dashboard page: the loaded sources, the corpus, and how every pair mapped to its gold document."""

from __future__ import annotations

import altair as alt
import duckdb

from biaswh.dashboards.common.format import count, plural, tooltips
from biaswh.dashboards.common.html import chart, table, text
from biaswh.dashboards.common.queries import id_order, query_rows, relation_exists
from biaswh.dashboards.common.site import register_page


def questions_per_document_chart(df) -> alt.Chart:
    """How many questions each corpus document answers, per split."""
    return (
        alt.Chart(df)
        .mark_bar()
        .encode(
            x=alt.X("n_questions:O", title="questions per document"),
            y=alt.Y("n_documents:Q", title="documents"),
            color=alt.Color("split:N", title="split"),
            xOffset=alt.XOffset("split:N"),
            tooltip=tooltips("split:N", "n_questions:O", "n_documents:Q"),
        )
        .properties(title="Questions per corpus document", width=600, height=220)
    )


@register_page("corpus.html", "Sources and corpus")
def render(con: duckdb.DuckDBPyConnection) -> str:
    """The sources and corpus page."""
    parts = ["<h2>Loaded source versions</h2>"]
    if not relation_exists(con, "marts", "dim_source_versions"):
        return (
            '<p class="note">Nothing loaded yet: <code>biaswh run studies/demo.toml</code> (or any study), '
            "then reload.</p>"
        )
    columns, rows = query_rows(
        con,
        "select dataset, source_name, source_version, n_rows, source_sha256,"
        " loaded_at from marts.dim_source_versions order by dataset, source_name,"
        " source_version",
    )
    stored = [dict(zip(columns, r)) for r in rows]
    # The full hash on hover: 64 characters would widen the table past the page.
    rows = [[*r[:4], f'<span class="mono" title="{text(r[4])}">{text((r[4] or "")[:12])}…</span>', r[5]] for r in rows]
    parts.append(table(columns, rows, data=stored, raw_columns=frozenset({"source_sha256"})))
    if not relation_exists(con, "marts", "dim_corpus_documents"):
        return "".join(parts) + '<p class="note">Run <code>biaswh build</code> to build the corpus.</p>'
    columns, rows = query_rows(
        con,
        "select split, count(*) as documents, sum(n_questions) as questions"
        " from marts.dim_corpus_documents group by split order by split",
    )
    unmapped, pairs = (
        con.execute(
            "select count(*) filter (where mapping_status <> 'mapped'), count(*) from marts.fct_pair_gold_documents"
        ).fetchone()
        if relation_exists(con, "marts", "fct_pair_gold_documents")
        else (0, 0)
    )
    documents = sum(r[1] for r in rows)
    parts.insert(
        0,
        f'<p class="verdict"><b>{plural(documents, "corpus document")} in {plural(len(rows), "split")}</b>; '
        f"{count(pairs - unmapped)} of {plural(pairs, 'paired query', 'paired queries')} mapped to their gold "
        "document.</p>",
    )
    parts += ["<h2>Corpus documents (normalised, de-duplicated contexts)</h2>", table(columns, rows)]
    df = con.execute(
        # DuckDB's least(NULL, 10) is 10: a document without questions is counted at 0, not at "10 or more"
        "select split, least(coalesce(n_questions, 0), 10) as n_questions, count(*) as n_documents"
        " from marts.dim_corpus_documents group by all order by all"
    ).df()
    parts.append(chart(questions_per_document_chart(df)))
    parts.append(
        '<p class="note">Documents with 10 or more questions are counted in the bar at 10; documents '
        "without questions (a corpus loaded without questions, e.g. a BEIR folder) in the bar at 0.</p>"
    )
    columns, rows = query_rows(
        con,
        "select pair_set, gold_kind, mapping_status, count(*) as pairs"
        " from marts.fct_pair_gold_documents group by all order by all",
    )
    parts += ["<h2>Paired queries mapped to gold documents</h2>", table(columns, rows)]
    columns, rows = query_rows(
        con,
        "select pair_set, pair_id, source_row, gold_kind, corpus_split, squad_idx, gold_source_doc_id,"
        " gold_query_id, mapping_status"
        " from marts.fct_pair_gold_documents where mapping_status <> 'mapped'"
        f" order by pair_set, {id_order('pair_id')}, source_row limit 200",
    )
    parts.append(f"<h3>Pairs without a gold document ({len(rows)} shown)</h3>")
    parts.append(table(columns, rows) if rows else "<p>No pair without a gold document: every pair mapped.</p>")
    columns, rows = query_rows(
        con,
        "select pair_set, pair_id, variant, query_text_raw, query_text"
        " from marts.fct_query_variants where query_text <> query_text_raw"
        f" order by pair_set, {id_order('pair_id')}, variant limit 50",
    )
    parts.append(f"<h3>Queries changed by the light clean-up ({len(rows)} shown, up to 50)</h3>")
    parts.append(table(columns, rows) if rows else "<p>No query changed.</p>")
    return "".join(parts)
