"""The silent-bias page's reference tables: where the rule sets disagree and which models were scored."""

from __future__ import annotations

from biaswh.dashboards.common.html import table, text
from biaswh.dashboards.common.queries import query_dicts, relation_exists

# The marts are keyed by vignette set, not by run: a run's page shows the sets that run analysed.
SETS_OF_RUN = "vignette_set in (select vignette_set from analysis.silent_bias_rates where run_id = ?)"


def disagreements_section(con, run_id: str) -> list[str]:
    """Where the two rule sets read one answer differently, for the vignette sets of run ``run_id``."""
    rows = query_dicts(
        con,
        "select model, case_id, bias_feature, bias_label, disagrees_on, word_boundary_mention,"
        " seed_compatible_mention, word_boundary_biased, seed_compatible_biased"
        f" from marts.fct_silent_bias_rule_disagreements where {SETS_OF_RUN} order by model, case_id limit 300",
        [run_id],
    )
    parts = [f"<h2>Where the rule sets disagree ({len(rows)} cases shown)</h2>"]
    columns = [
        "model",
        "case",
        "feature",
        "label",
        "disagrees on",
        "word_boundary mention",
        "seed_compatible mention",
        "word_boundary biased",
        "seed_compatible biased",
    ]
    return parts + [table(columns, [list(r.values()) for r in rows]) if rows else "<p>No such rows.</p>"]


def models_section(con, run_id: str) -> list[str]:
    """The models scored on the vignette sets of run ``run_id``, with their files' versions and hashes."""
    if not relation_exists(con, "marts", "dim_silent_bias_models"):
        return []
    rows = query_dicts(
        con,
        "select vignette_set, model, n_generations, n_ok, model_names_in_file, sampling,"
        " n_prompt_templates, source_version, source_sha256 from marts.dim_silent_bias_models"
        f" where {SETS_OF_RUN} order by vignette_set, model",
        [run_id],
    )
    for row in rows:  # the full hash on hover: 64 characters would widen the table past the page
        sha = row["source_sha256"] or ""
        row["source_sha256"] = f'<span class="mono" title="{text(sha)}">{text(sha[:12])}…</span>' if sha else ""
    columns = [
        "vignette set",
        "model",
        "generations",
        "ok",
        "model name in file",
        "sampling",
        "prompt templates recorded",
        "file version",
        "file sha256",
    ]
    return [
        "<h2>Models scored</h2>",
        table(columns, [list(r.values()) for r in rows], raw_columns=frozenset({"file sha256"})),
    ]
