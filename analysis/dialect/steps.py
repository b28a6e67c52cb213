"""Analysis step ``dialect_tests``: the dialect study's statistics into ``analysis.dialect_*``."""

from __future__ import annotations

from biaswh.analysis.common.store import replace_run_rows
from biaswh.analysis.dialect import subject_findings  # noqa: F401 - registers the retrievers' findings
from biaswh.analysis.dialect.feature_effects import feature_effects
from biaswh.analysis.dialect.paired_statistics import paired_tests, power_rows, rank_tests
from biaswh.stats.multiple_comparisons import verdict_policy
from biaswh.warehouse.database.transactions import transaction
from biaswh.warehouse.errors import UserError
from biaswh.warehouse.relations.contracts import register_contract_relations
from biaswh.warehouse.runs.parameters import register_run_parameters
from biaswh.warehouse.runs.study import register_analysis, register_rebuild_table
from biaswh.warehouse.settings.config_schema import COUNT, CUTOFF, Table
from biaswh.warehouse.settings.study_schema import RESAMPLES, register_config_section

register_config_section("dialect", Table({"bootstrap_resamples": RESAMPLES}))
register_run_parameters({"snippet_chars": COUNT, "dialect_highlight_k": CUTOFF})

register_contract_relations("marts", dialect_recall_at_k="agg_dialect_recall_at_k")
register_contract_relations("analysis", "dialect_paired_tests")
# The dialect marts derive from the one retrieval-metric chain: its base is rebuilt with them.
register_rebuild_table("dialect", "fct_dialect_gold_ranks")


@register_analysis(
    "dialect_tests",
    first_query="select retriever, k, delta_pp, p_exact, p_adjusted, adjustment, ci_low, ci_high"
    " from dialect_paired_tests where run_id = '{run}' and is_highlighted_k",
)
def dialect_tests(con, study, run_id: str) -> None:
    """Write ``analysis.dialect_paired_tests``, ``dialect_rank_tests`` and ``dialect_power`` for ``run_id``."""
    settings = study.settings.get("dialect", {})
    n_resamples = int(settings.get("bootstrap_resamples", 2000))
    policy = verdict_policy(study.settings, where=str(study.path))
    tests = paired_tests(con, run_id, seed=study.seed, n_resamples=n_resamples, policy=policy)
    if tests.height == 0:
        raise UserError(
            f"run {run_id} has no dialect retrieval results: does the study run the `retrieval` job "
            "over a pair set with two or more variants?"
        )
    ranks = rank_tests(con, run_id, seed=study.seed)
    power = power_rows(tests, alpha=policy.alpha)
    with transaction(con):
        counts = {
            name: replace_run_rows(con, name, run_id, frame)
            for name, frame in (
                ("dialect_paired_tests", tests),
                ("dialect_rank_tests", ranks),
                ("dialect_power", power),
            )
        }
    print("  " + ", ".join(f"analysis.{name}: {n:,} rows" for name, n in counts.items()), flush=True)


@register_analysis("dialect_feature_effects")
def dialect_feature_effects(con, study, run_id: str) -> None:
    """Write ``analysis.dialect_feature_effects`` (per-rule attribution) for ``run_id``."""
    settings = study.settings.get("dialect", {})
    effects = feature_effects(
        con,
        run_id,
        seed=study.seed,
        n_resamples=int(settings.get("bootstrap_resamples", 2000)),
        policy=verdict_policy(study.settings, where=str(study.path)),
    )
    if effects.height == 0:
        raise UserError(
            f"run {run_id} has no rule variants to attribute: the study needs a pair set with variants "
            "'aae_rules' and 'rule_<name>' (an [[ingest]] source = \"rule_variants\" step)"
        )
    with transaction(con):
        count = replace_run_rows(con, "dialect_feature_effects", run_id, effects)
    print(f"  analysis.dialect_feature_effects: {count:,} rows", flush=True)
