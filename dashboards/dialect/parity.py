"""The dialect page's parity section: the seed-compatible BM25 run beside the corrected default.

``bm25_seed_compatible`` (``studies/squad_dialect_seed_compatible.toml``) reproduces the
original notebook's published table; ``bm25`` is the corrected default. When the warehouse
holds an analysed run of each, the section shows their highlighted-k tables side by side:
recall of both variants, the 2x2 table and McNemar's chi-square with continuity correction
(the test the notebook reported), so a reader sees what the corrections change.
"""

from __future__ import annotations

import duckdb

from biaswh.dashboards.common.html import table, text
from biaswh.dashboards.common.queries import query_dicts
from biaswh.dashboards.dialect.card import RUNS

SEED_COMPATIBLE = "bm25_seed_compatible"
MODES = {SEED_COMPATIBLE: "seed_compatible (original notebook)", "bm25": "default (corrected)"}


def parity_section(con: duckdb.DuckDBPyConnection) -> str:
    """The section, or an empty string when no seed-compatible run was analysed."""
    # the site's runs (biaswh.dashboards.common.runs), newest first: each mode's newest run is its first
    run_order = [run.run_id for run in RUNS.runs(con)]
    found = query_dicts(
        con,
        """
        with latest as (
            select t.retriever, t.run_id, r.run_name, t.pair_set,
                row_number() over (partition by t.retriever order by list_position(?, t.run_id)) as recency
            from (select distinct run_id, retriever, pair_set from analysis.dialect_paired_tests
                where retriever in ('bm25', 'bm25_seed_compatible') and list_contains(?, run_id)) t
            join marts.dim_runs r using (run_id)
        )
        select t.retriever, l.run_name, t.pair_set, t.k, t.n_pairs, t.recall_a, t.recall_b,
            t.both_hit, t.only_a, t.only_b, t.neither, t.p_chi2_cc, t.p_exact
        from analysis.dialect_paired_tests t
        join latest l on l.run_id = t.run_id and l.retriever = t.retriever and l.pair_set = t.pair_set
        where l.recency = 1 and t.is_highlighted_k
        order by t.k, t.retriever desc
        """,
        [run_order, run_order],
    )
    if not any(r["retriever"] == SEED_COMPATIBLE for r in found):
        return ""
    columns = ["run_name", "pair_set", "k", "n_pairs", "recall_a", "recall_b", "table_2x2", "p_chi2_cc", "p_exact"]
    body = [
        [MODES[r["retriever"]], r["run_name"], r["pair_set"], r["k"], r["n_pairs"], r["recall_a"], r["recall_b"]]
        + [f"[[{r['both_hit']}, {r['only_a']}], [{r['only_b']}, {r['neither']}]]", r["p_chi2_cc"], r["p_exact"]]
        for r in found
    ]
    missing = (
        "" if any(r["retriever"] == "bm25" for r in found) else " No default (corrected) BM25 run is analysed yet."
    )
    return (
        '<section id="parity"><h2>Parity with the published table</h2><p class="note">The latest analysed '
        "BM25 run of each mode. seed_compatible reproduces the original notebook: its light clean-up (which "
        'turns "ain\'t" into "aingt") and its ranking (numpy.argsort(scores)[::-1] over every document, ties '
        "in numpy's order). The default keeps \"ain't\", ranks only documents sharing a query token and breaks "
        "ties by doc_id. table_2x2 is [[both hit, only A], [only B, neither]]; p_chi2_cc is McNemar's "
        f"chi-square with continuity correction, as the notebook reported.{text(missing)}</p>"
        + table(["mode", *columns], body, data=found)
        + "</section>"
    )
