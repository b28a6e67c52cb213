"""Dashboard page: the dialect retrieval bias study (latest run with results)."""

from __future__ import annotations

import duckdb

from biaswh.dashboards.common.format import fixed, interval, points, sample_size, shared_decimals
from biaswh.dashboards.common.html import chart, table, text
from biaswh.dashboards.common.queries import id_order, query_dicts, query_rows, relation_exists
from biaswh.dashboards.common.site import register_page
from biaswh.dashboards.common.verdict_policy import policy_phrase, run_alpha
from biaswh.dashboards.dialect.card import REACHABLE_GAP, RUNS
from biaswh.dashboards.dialect.card import dialect_finding as finding
from biaswh.dashboards.dialect.charts import rank_distribution_chart, recall_at_k_chart
from biaswh.dashboards.dialect.parity import parity_section
from biaswh.dashboards.dialect.power_sentences import power_sentences, reachable_gap
from biaswh.stats.verdicts import alpha_text

RANK_BINS = """case when not is_found_within_depth then 'not found'
    when rank_of_gold = 1 then '1' when rank_of_gold <= 5 then '2-5' when rank_of_gold <= 10 then '6-10'
    when rank_of_gold <= 20 then '11-20' when rank_of_gold <= 50 then '21-50' else '51+' end"""

SECTION = "run_id = ? and pair_set = ?"


def _summary(con, run_id: str, pair_set: str, policy: str) -> str:
    rows = query_dicts(
        con,
        f"""
        select pair_set, retriever, k, variant_a, variant_b, n_pairs, recall_a, recall_b, delta_pp, ci_low, ci_high,
               only_a, only_b, p_exact, adjustment, family, family_size, p_adjusted, is_significant
        from analysis.dialect_paired_tests where {SECTION} and is_highlighted_k order by k, retriever""",
        [run_id, pair_set],
    )
    columns = ["pair_set", "retriever", "k", "comparison", "n_pairs", "recall_a", "recall_b", "delta_pp", "ci_95_pp"]
    columns += ["only_a", "only_b", "p_exact", "adjustment", "family_size", "p_adjusted", "is_significant"]
    shown = [
        [r["pair_set"], r["retriever"], r["k"], f"{r['variant_a']} vs {r['variant_b']}", r["n_pairs"]]
        + [r["recall_a"], r["recall_b"], points(r["delta_pp"]), interval(r["ci_low"], r["ci_high"], unit="points")]
        + [r["only_a"], r["only_b"], r["p_exact"], r["adjustment"], r["family_size"], r["p_adjusted"]]
        + [r["is_significant"]]
        for r in rows
    ]
    return (
        '<h3>Paired comparison at the highlighted k</h3><p class="note">McNemar three ways on the discordant '
        "pairs (only_a: only variant A found the gold document within k; mid-p and χ² are under Discordant "
        "pairs); p_adjusted adjusts p_exact within each retriever over the highlighted k (the family, of "
        "family_size tests), by the study's verdict policy (" + text(policy) + "); is_significant: p_adjusted "
        "&lt; alpha. The interval of the recall difference, in points, is Newcombe's hybrid score interval for "
        "paired proportions (method 10, 1998): unlike a bootstrap it does not collapse onto 0 when few pairs "
        "are discordant, so it agrees with the exact test there.</p>" + table(columns, shown, data=rows)
    )


def _power(con, run_id: str, pair_set: str, alpha: float) -> str:
    rows = query_dicts(
        con,
        f"""select retriever, variant_a, variant_b, k, n_pairs, n_discordant, discordance_rate, detectable_gap_pp,
        pairs_needed_for_2pp, alpha, power from analysis.dialect_power where {SECTION}
        order by retriever, variant_b, k""",
        [run_id, pair_set],
    )
    ks = sorted({r["k"] for r in rows})
    # one row per comparison: a run of rule variants compares the reference with each variant
    cells: dict[tuple[str, str], dict] = {}
    for r in rows:
        comparison = f"{r['variant_a']} vs {r['variant_b']}"
        found = cells.setdefault((r["retriever"], comparison), {"n_pairs": r["n_pairs"]})
        gap = reachable_gap(r)
        found[r["k"]] = f"{fixed(gap, 1)} ({r['n_discordant']})" if gap is not None else f"none ({r['n_discordant']})"
        found["needed"] = r["pairs_needed_for_2pp"]
    body = [
        [pair_set, retriever, comparison, c["n_pairs"], *[c.get(k, "–") for k in ks], sample_size(c["needed"])]
        for (retriever, comparison), c in cells.items()
    ]
    columns = ["pair_set", "retriever", "comparison", "n_pairs", *[f"k = {k}" for k in ks], "pairs_needed_for_2pp"]
    n_pairs = max((r["n_pairs"] for r in rows), default=0)
    planning = power_sentences(n_pairs, alpha=rows[0]["alpha"], power=rows[0]["power"]) if rows else ""
    return (
        '<h3>What this study can detect</h3><p class="note">Per highlighted k: the smallest recall gap '
        f"in points (detectable_gap_pp) a two-sided exact McNemar test at {alpha_text(alpha)} (the verdict "
        "policy's) detects with 80% power, with "
        'the discordant pairs it rests on (n_discordant) in brackets; "none": no gap the observed discordance '
        "allows is detectable. Pairs a 2-point gap would need at the discordance of the largest k (Connor "
        f"1987).</p>{planning}" + table(columns, body, data=rows)
    )


def _rank_tests(con, run_id: str, pair_set: str) -> str:
    rows = query_dicts(
        con,
        f"""select pair_set, retriever, variant_a || ' vs ' || variant_b as comparison,
        test_variant, n_pairs, n_used, statistic, p_value, rank_biserial, ci_low, ci_high, note
        from analysis.dialect_rank_tests where {SECTION} order by retriever, policy""",
        [run_id, pair_set],
    )
    columns = ["pair_set", "retriever", "comparison", "test_variant", "n_pairs", "n_used", "statistic", "p_value"]
    columns += ["rank_biserial", "ci_95", "note"]
    shown = [
        [r[c] for c in columns[:8]]
        + [fixed(r["rank_biserial"], shared_decimals(r["rank_biserial"], r["ci_low"], r["ci_high"]))]
        + [interval(r["ci_low"], r["ci_high"], like=r["rank_biserial"]), r["note"]]
        for r in rows
    ]
    return (
        '<h3>Rank of the gold document: Wilcoxon signed-rank</h3><p class="note">Recommended policy: a miss '
        "counts as depth + 1 and zero differences are kept (Pratt). The original policy drops pairs with a miss "
        "and zero differences; compare the n each used. Rank-biserial r &gt; 0: variant A ranks the gold "
        "document lower (worse).</p>" + table(columns, shown, data=rows)
    )


def _discordant_tables(con, run_id: str, pair_set: str) -> str:
    parts = ["<h3>Discordant pairs</h3>"]
    for (k,) in con.execute(
        f"select distinct k from analysis.dialect_paired_tests where {SECTION} and is_highlighted_k order by k",
        [run_id, pair_set],
    ).fetchall():
        columns, rows = query_rows(
            con,
            f"""select pair_set, retriever, both_hit, only_a, only_b, neither, p_exact,
            p_midp, p_chi2_cc from analysis.dialect_paired_tests where {SECTION} and k = ? order by retriever""",
            [run_id, pair_set, k],
        )
        parts += [f"<h4>k = {text(k)}</h4>", table(columns, rows)]
    return "".join(parts)


def _errors(con, run_id: str, pair_set: str) -> str:
    columns, rows = query_rows(
        con,
        f"""select pair_set, retriever, k, pair_id, outcome, query_text_a,
        gold_outcome_a, query_text_b, gold_outcome_b, gold_snippet from marts.fct_dialect_error_examples
        where {SECTION} and retriever in (select retriever from analysis.dialect_paired_tests where run_id = ?)
        order by k, retriever, {id_order("pair_id")} limit 60""",
        [run_id, pair_set, run_id],
    )
    return (
        f'<h3>Error examples (first {len(rows)})</h3><p class="note">Pairs where exactly one variant found '
        "the gold document within k.</p>" + (table(columns, rows) if rows else "<p>No such rows.</p>")
    )


def _pair_set_charts(con, run_id: str, pair_set: str) -> dict:
    recall = con.execute(
        f"""select retriever, variant, k, recall, recall_ci_low, recall_ci_high
        from marts.agg_dialect_recall_at_k where {SECTION} and retriever = retriever_family
        order by retriever, variant, k""",
        [run_id, pair_set],
    ).df()
    depth = con.execute(
        f"select max(depth) from marts.fct_dialect_gold_ranks where {SECTION}", [run_id, pair_set]
    ).fetchone()[0]
    ranks = con.execute(
        f"""select retriever, variant, {RANK_BINS} as rank_bin, count(*) as n_queries
        from marts.fct_dialect_gold_ranks where {SECTION} and retriever = retriever_family
        group by all order by all""",
        [run_id, pair_set],
    ).df()
    found = {}
    if len(recall):
        found["recall_at_k"] = recall_at_k_chart(recall, depth=depth)
    if len(ranks):
        found["gold_ranks"] = rank_distribution_chart(ranks)
    return found


def charts(con: duckdb.DuckDBPyConnection, run_id: str) -> dict:
    """The page's charts of one run, by ``<pair set>:<chart>`` (recall_at_k, gold_ranks); no HTML written."""
    pair_sets = con.execute(
        "select distinct pair_set from analysis.dialect_paired_tests where run_id = ? order by pair_set", [run_id]
    ).fetchall()
    return {
        f"{pair_set}:{name}": figure
        for (pair_set,) in pair_sets
        for name, figure in _pair_set_charts(con, run_id, pair_set).items()
    }


def _pair_set_section(con, run_id: str, pair_set: str) -> str:
    # The analysis step tests retriever families only (no sweep points), so every row is a comparison.
    tests = query_dicts(
        con,
        f"select * from analysis.dialect_paired_tests where {SECTION} and is_highlighted_k order by k, retriever",
        [run_id, pair_set],
    )
    power = {
        (r, k): g
        for r, k, g in con.execute(
            f"select retriever, k, {REACHABLE_GAP} from analysis.dialect_power where {SECTION}", [run_id, pair_set]
        ).fetchall()
    }
    figures = _pair_set_charts(con, run_id, pair_set)
    alpha = run_alpha(con, run_id, tests)
    sizes = sorted({r["family_size"] for r in tests if r.get("family_size")})
    policy = policy_phrase(
        next((r["adjustment"] for r in tests if r.get("adjustment")), None),
        sizes[-1] if sizes else len(tests),
        alpha,
        family="each retriever over the highlighted k",
    )
    parts = [
        f'<section id="pair-set-{text(pair_set)}"><h2>Pair set {text(pair_set)}</h2>',
        finding(tests, power, alpha=alpha),
        _power(con, run_id, pair_set, alpha),
        _summary(con, run_id, pair_set, policy),
    ]
    if "recall_at_k" in figures:
        parts += [
            "<h3>Recall@k</h3>",
            chart(figures["recall_at_k"], name=f"recall_at_k_{pair_set}"),
            '<p class="note">Bands: Wilson 95% intervals per variant; k from 1 to the run\'s depth; '
            "the y axis is fitted to the data and their bands.</p>",
        ]
    if "gold_ranks" in figures:
        parts += ["<h3>Where the gold document lands</h3>", chart(figures["gold_ranks"], name=f"gold_ranks_{pair_set}")]
    parts += [
        _rank_tests(con, run_id, pair_set),
        _discordant_tables(con, run_id, pair_set),
        _errors(con, run_id, pair_set),
        "</section>",
    ]
    return "".join(parts)


def _provenance(con, run_id: str) -> str:
    code = con.execute("select code_version, started_at from marts.dim_runs where run_id = ?", [run_id]).fetchone()
    if not relation_exists(con, "marts", "dim_source_versions"):
        return (
            f"<h2>Provenance</h2><p>Study run <code>{text(run_id)}</code>;"
            " run <code>biaswh build</code> to list its inputs.</p>"
        )
    _, sources = query_rows(
        con,
        """select v.dataset, v.source_name, v.source_version, v.source_path, v.source_sha256
        from (select unnest(inputs) as input from marts.dim_runs where run_id = ?) pinned
        join marts.dim_source_versions v on v.dataset = pinned.input.dataset and v.source_name = pinned.input.name
            and v.source_version = pinned.input.version order by all""",
        [run_id],
    )
    items = "".join(
        f'<li>{text(d)} <b>{text(n)}</b> version {text(v)}: <span class="mono">{text(p)}</span>'
        f" sha256 <code>{text(s)}</code></li>"
        for d, n, v, p, s in sources
    )
    return (
        f"<h2>Provenance</h2><p>Study run <code>{text(run_id)}</code>, started {text(code[1] if code else '')},"
        f" code version <code>{text(code[0] if code else '')}</code>. Inputs it read:</p><ul>{items}</ul>"
    )


@register_page(
    "dialect.html",
    "Dialect retrieval bias",
    runs=RUNS,
    studies=("studies/demo.toml", "studies/squad_dialect.toml"),
)
def render(con: duckdb.DuckDBPyConnection, run_id: str | None) -> str:
    """The dialect page of study run ``run_id``."""
    if run_id is None:
        return '<p class="note">No dialect study has been analysed in this warehouse yet.</p>'
    pair_sets = [
        r[0]
        for r in con.execute(
            "select distinct pair_set from analysis.dialect_paired_tests where run_id = ? order by pair_set", [run_id]
        ).fetchall()
    ]
    links = ", ".join(f'<a href="#pair-set-{text(p)}">{text(p)}</a>' for p in pair_sets)
    return "".join(
        [
            f'<p class="note">Study run <code>{text(run_id)}</code>; one section per pair set ({links}),'
            " each leading with its finding, then the evidence.</p>",
            *(_pair_set_section(con, run_id, p) for p in pair_sets),
            parity_section(con),
            _provenance(con, run_id),
        ]
    )
