"""A study's builds are derived from what its steps declare, and select what the hand-written selectors did.

Until issue 51 each job spelled its dbt selection (``before=``/``after=`` node names and
``path:models/...`` folders). The selections dbt derives now from the declared raw tables,
relations and the families' tags must build the same nodes for every demo study; the old
selectors are kept here, as test data, to prove it.
"""

from __future__ import annotations

import json

import pytest

from biaswh.plugins import load_plugins
from biaswh.warehouse.dbt_build.invoke import invoke_dbt
from biaswh.warehouse.dbt_build.selection import (
    SITE_READS,
    StepDeclaration,
    family_of,
    site_selection,
    study_selections,
)
from biaswh.warehouse.dbt_build.view_state import selection_nodes
from biaswh.warehouse.runs.study import STEP_DECLARATIONS, build_selections, load_study, register_job
from tests.conftest import REPOSITORY_ROOT

pytestmark = pytest.mark.dbt

_RETRIEVAL_AFTER = (
    "path:models/staging/retrieval path:models/staging/warehouse path:models/intermediate/retrieval"
    " path:models/intermediate/dialect fct_evaluation_relevant_ranks path:models/marts/dialect"
)
_RETRIEVAL_BEFORE = (
    "+fct_query_variants +fct_pair_gold_judgments +fct_squad_questions +dim_corpus_documents"
    " +fct_corpus_queries +fct_evaluation_qrels"
)
_EVALUATION = (
    "+fct_squad_questions +dim_corpus_documents +fct_query_variants +fct_corpus_queries +fct_evaluation_qrels",
    "path:models/staging/retrieval path:models/staging/evaluation path:models/staging/warehouse"
    " path:models/intermediate/retrieval path:seeds/evaluation path:models/marts/evaluation",
)
_RECSYS_AFTER = (
    "path:models/staging/recsys path:models/staging/warehouse path:models/intermediate/recsys path:models/marts/recsys"
)
# The selections of the two builds as the steps spelled them before issue 51 ("": no build).
HAND_WRITTEN = {
    "demo.toml": (_RETRIEVAL_BEFORE, _RETRIEVAL_AFTER),
    "demo_rule_variants.toml": (_RETRIEVAL_BEFORE, _RETRIEVAL_AFTER),
    "demo_evaluation.toml": _EVALUATION,
    "demo_external_runs.toml": _EVALUATION,
    "demo_recsys.toml": ("+fct_recsys_post_values +stg_recsys__published_results", _RECSYS_AFTER),
    "demo_silent_bias.toml": (
        "path:models/staging/silent_bias path:seeds/silent_bias"
        " path:models/intermediate/silent_bias path:models/marts/silent_bias",
        "",
    ),
    "demo_weat.toml": (
        "+dim_weat_embeddings +dim_weat_test_words +dim_weat_tests",
        "path:models/staging/weat path:models/staging/warehouse path:models/marts/weat",
    ),
}


# Issue 51 moved one mart between the builds: the retrieval job no longer reads
# fct_pair_gold_judgments (it copied it into raw.retrieval_judgments); the run-keyed pin that
# replaced the copy (int_retrieval_pair_judgments_pinned, in the retrieval chain) reads it, so the
# build after the jobs of every study running that chain builds it first.
MOVED_TO_RESULTS = {
    "demo.toml": "fct_pair_gold_judgments",
    "demo_rule_variants.toml": "fct_pair_gold_judgments",
    "demo_evaluation.toml": "fct_pair_gold_judgments",
    "demo_external_runs.toml": "fct_pair_gold_judgments",
}

# Then it moved the evaluation job's qrels copy into dbt: the pin (int_evaluation_judgments_pinned,
# read by the retrieval chain) and the series runs it reads (with their tests) join the build
# after the jobs of every study running that chain.
PINNED_IN_RESULTS = "int_evaluation_judgments_pinned stg_evaluation__runs stg_warehouse__runs"


def _nodes(selection: str) -> set[str]:
    if selection == "":
        return set()
    return {node.unique_id for node in selection_nodes(["--select", selection, "--indirect-selection", "cautious"])}


@pytest.mark.parametrize("config", sorted(HAND_WRITTEN))
def test_the_derived_selections_build_the_nodes_the_hand_written_ones_did(config):
    load_plugins()
    derived = build_selections(load_study(REPOSITORY_ROOT / "studies" / config))
    before, after = HAND_WRITTEN[config]
    # the first build also selects what the site reads (the old code appended "+dim_runs +dim_source_versions")
    moved = _nodes(MOVED_TO_RESULTS.get(config, ""))
    old_sources = _nodes(f"{before} +dim_runs +dim_source_versions")
    new_sources = _nodes(f"{derived['sources']} {site_selection()}")
    assert new_sources == old_sources - moved and old_sources
    pinned = _nodes(PINNED_IN_RESULTS) if config in MOVED_TO_RESULTS else set()
    assert _nodes(derived["results"]) == _nodes(after) | moved | pinned


def _manifest(resource_type: str) -> list[dict]:
    outcome = invoke_dbt(
        ["ls", "--resource-type", resource_type, "--output", "json", "--output-keys", "name schema tags"]
    )
    assert outcome.success
    return [json.loads(line) for line in outcome.result]


def test_every_declared_table_and_family_is_in_the_dbt_graph():
    """A renamed source or model, or a family without a tag, fails here and not in a study run."""
    load_plugins()
    sources = {f"{row['schema']}.{row['name']}" for row in _manifest("source")}
    models = _manifest("model")
    relations = {f"{row['schema']}.{row['name']}" for row in models}
    tags = {tag for row in models for tag in row["tags"]}
    problems = []
    for (kind, name), step in STEP_DECLARATIONS.items():
        problems += [f"{kind} {name} writes {t}: no such dbt source" for t in step.writes if t not in sources]
        problems += [f"{kind} {name} reads {t}: no such dbt model" for t in step.reads if t not in relations]
        if step.family not in tags:
            problems.append(f"{kind} {name}: no dbt model carries the tag of its family {step.family!r}")
    problems += [f"the site reads {table}: no such dbt model" for table in SITE_READS if table not in relations]
    assert not problems, "\n".join(problems)
    assert {"retrieval", "evaluation", "weat", "recsys", "dialect", "silent_bias"} <= tags


def test_a_study_without_jobs_builds_its_families_once_and_one_with_jobs_builds_what_they_wrote():
    job = StepDeclaration("weat", writes=("raw.weat_metric_results",), reads=("marts.dim_weat_tests",))
    report = StepDeclaration("weat")
    with_jobs = study_selections([job], [report])
    assert with_jobs["sources"] == "+dim_weat_tests"
    assert "tag:weat" in with_jobs["results"].split()
    assert "source:*.weat_metric_results+,+tag:weat" in with_jobs["results"].split()
    assert study_selections([], [StepDeclaration("silent_bias")]) == {"sources": "+tag:silent_bias", "results": ""}
    assert study_selections([], []) == {"sources": None, "results": None}


def test_a_job_declares_relations_never_selectors():
    assert family_of("biaswh.compute.recsys.steps_importance") == "recsys"
    assert family_of("biaswh.dialect.cli") == "dialect" and family_of("biaswh.analysis.weat.steps") == "weat"
    for bad in ({"writes": ("retrieval_results",)}, {"reads": ("+fct_query_variants",)}, {"writes": ("marts.x",)}):
        with pytest.raises(ValueError, match="<schema>.<table>"):
            register_job("not_registered", **bad)
