"""Dashboard page: the dialect retrieval bias study (latest run with results)."""

from __future__ import annotations

import duckdb

from dashboards.charts.dialect import rank_distribution_chart, recall_at_k_chart
from dashboards.html import chart, table, text
from dashboards.queries import number, query_rows, relation_exists
from dashboards.site import register_page

RANK_BINS = """case when not is_found_within_depth then 'not found'
    when rank_of_gold = 1 then '1' when rank_of_gold <= 5 then '2-5' when rank_of_gold <= 10 then '6-10'
    when rank_of_gold <= 20 then '11-20' when rank_of_gold <= 50 then '21-50' else '51+' end"""





def _summary(con, run_id: str) -> str:
    columns, rows = query_rows(con, """
        select retriever, k, variant_a || ' vs ' || variant_b as comparison, n_pairs,
               round(100 * recall_a, 1) as recall_a_pct, round(100 * recall_b, 1) as recall_b_pct,
               round(delta_pp, 1) as delta_pp, '[' || round(ci_low, 1) || ', ' || round(ci_high, 1) || ']' as ci_95_pp,
               only_a, only_b, p_exact, p_midp, p_chi2_cc, p_holm
        from analysis.dialect_paired_tests where run_id = ? and is_highlighted_k order by k, retriever""", [run_id])
    rows = [[number(v) for v in row] for row in rows]
    return ("<h2>Paired comparison at the highlighted k</h2><p class=\"note\">McNemar three ways on the discordant "
            "pairs (only_a: only variant A found the gold document within k); p_holm adjusts p_exact over retrievers "
            "× highlighted k. The interval is a seeded paired bootstrap of the recall difference, in points.</p>"
            + table(columns, rows))


def _power(con, run_id: str) -> str:
    _, rows = query_rows(con, "select retriever, k, sentence from analysis.dialect_power where run_id = ?"
                         " order by k, retriever", [run_id])
    items = "".join(f"<li><b>{text(r)} @ {text(k)}</b>: {text(s)}</li>" for r, k, s in rows)
    return f"<h2>What this study can detect</h2><ul>{items}</ul>"


def _rank_tests(con, run_id: str) -> str:
    columns, rows = query_rows(con, """select retriever, variant_a || ' vs ' || variant_b as comparison, test_variant,
        n_pairs, n_used, statistic, p_value, rank_biserial, '[' || round(ci_low, 3) || ', ' || round(ci_high, 3) || ']'
        as ci_95, note from analysis.dialect_rank_tests where run_id = ? order by retriever, policy""", [run_id])
    return ("<h2>Rank of the gold document: Wilcoxon signed-rank</h2><p class=\"note\">Recommended policy: a miss "
            "counts as depth + 1 and zero differences are kept (Pratt). The original policy drops pairs with a miss "
            "and zero differences; compare the n each used. Rank-biserial r &gt; 0: variant A ranks the gold "
            "document lower (worse).</p>" + table(columns, [[number(v) for v in row] for row in rows]))


def _discordant_tables(con, run_id: str) -> str:
    parts = ["<h2>Discordant pairs</h2>"]
    for (k,) in con.execute("select distinct k from analysis.dialect_paired_tests where run_id = ? and"
                            " is_highlighted_k order by k", [run_id]).fetchall():
        columns, rows = query_rows(con, """select retriever, both_hit, only_a, only_b, neither, p_exact, p_midp, p_chi2_cc
            from analysis.dialect_paired_tests where run_id = ? and k = ? order by retriever""", [run_id, k])
        parts += [f"<h3>k = {text(k)}</h3>", table(columns, [[number(v) for v in row] for row in rows])]
    return "".join(parts)


def _errors(con, run_id: str) -> str:
    columns, rows = query_rows(con, """select retriever, k, pair_id, outcome, query_text_a, gold_outcome_a, query_text_b,
        gold_outcome_b, gold_snippet from marts.fct_dialect_error_examples where run_id = ? and retriever in
        (select retriever from analysis.dialect_paired_tests where run_id = ?)
        order by k, retriever, pair_id limit 60""", [run_id, run_id])
    return (f"<h2>Error examples (first {len(rows)})</h2><p class=\"note\">Pairs where exactly one variant found "
            "the gold document within k.</p>" + (table(columns, rows) if rows else "<p>None.</p>"))


def _provenance(con, run_id: str) -> str:
    code = con.execute("select code_version, started_at from marts.dim_runs where run_id = ?", [run_id]).fetchone()
    if not relation_exists(con, "marts", "dim_source_versions"):
        return f"<h2>Provenance</h2><p>Study run <code>{text(run_id)}</code>; run <code>biaswh build</code> to list its inputs.</p>"
    _, sources = query_rows(con, """select v.dataset, v.source_name, v.source_version, v.source_path, v.source_sha256
        from (select unnest(inputs) as input from marts.dim_runs where run_id = ?) pinned
        join marts.dim_source_versions v on v.dataset = pinned.input.dataset and v.source_name = pinned.input.name
            and v.source_version = pinned.input.version order by all""", [run_id])
    items = "".join(f"<li>{text(d)} <b>{text(n)}</b> version {text(v)}: <span class=\"mono\">{text(p)}</span>"
                    f" sha256 <code>{text(s)}</code></li>" for d, n, v, p, s in sources)
    return (f"<h2>Provenance</h2><p>Study run <code>{text(run_id)}</code>, started {text(code[1] if code else '')},"
            f" code version <code>{text(code[0] if code else '')}</code>. Inputs it read:</p><ul>{items}</ul>")


@register_page("dialect.html", "Dialect retrieval bias")
def render(con: duckdb.DuckDBPyConnection) -> str:
    if not relation_exists(con, "analysis", "dialect_paired_tests"):
        return '<p class="note">No dialect study has been analysed in this warehouse yet.</p>'
    run_id = con.execute("select t.run_id from analysis.dialect_paired_tests t join marts.dim_runs r using (run_id)"
                         " order by r.started_at desc limit 1").fetchone()[0]
    recall = con.execute("""select r.retriever, r.variant, r.k, r.recall, r.recall_ci_low, r.recall_ci_high
        from marts.agg_dialect_recall_at_k r where r.run_id = ? and r.retriever = r.retriever_family""",
                         [run_id]).df()
    ranks = con.execute(f"""select retriever, variant, {RANK_BINS} as rank_bin, count(*) as n_queries
        from marts.fct_dialect_gold_ranks where run_id = ? and retriever = retriever_family group by all""",
                        [run_id]).df()
    return "".join([
        f'<p class="note">Latest analysed run: <code>{text(run_id)}</code>.</p>',
        _power(con, run_id), _summary(con, run_id),
        "<h2>Recall@k</h2>", chart(recall_at_k_chart(recall)),
        '<p class="note">Bands: Wilson 95% intervals per variant.</p>',
        "<h2>Where the gold document lands</h2>", chart(rank_distribution_chart(ranks)),
        _rank_tests(con, run_id), _discordant_tables(con, run_id), _errors(con, run_id), _provenance(con, run_id),
    ])
