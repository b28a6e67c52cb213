"""The dialect studies' findings about each retriever they measure, for ``subject_findings``.

One finding per retriever, pair set, highlighted k and variant pair: the recall gap of the
paired test (``analysis.dialect_paired_tests``); and per dialect rule and k, the recall gap of
the pairs the rule changes (``analysis.dialect_feature_effects``); each judged within the
study's own family. Its units (for comparing two retrievers pair by pair) are the query pairs.
"""

from __future__ import annotations

from biaswh.warehouse.relations.subject_units import register_subject_units
from biaswh.warehouse.relations.subjects import register_subject_findings

STUDY_TYPE = "dialect retrieval bias"
# Both tables' paired recall gap, its interval, exact McNemar p and the study's own verdict.
RECALL_GAP = """
        'recall gap, points (' || variant_a || ' minus ' || variant_b || ')' as effect_name,
        delta_pp as effect,
        ci_low,
        ci_high,
        p_exact as p_value,
        p_adjusted,
        is_significant,
        adjustment || ' within ' || family || ' (' || family_size || if(family_size = 1, ' test', ' tests')
        || '), α = ' || alpha as policy"""

register_subject_findings(
    STUDY_TYPE,
    kind="retriever",
    relations=("analysis.dialect_paired_tests",),
    select="""
    select
        run_id,
        retriever as measured_as,
        'dialect: ' || variant_b || ' vs ' || variant_a as dimension,
        'recall@' || k || ', ' || variant_a || ' vs ' || variant_b || ' (pair set ' || pair_set || ')' as finding,
        {recall_gap}
    from analysis.dialect_paired_tests
    where is_highlighted_k
    """.format(recall_gap=RECALL_GAP),
)

register_subject_findings(
    "dialect feature effects",
    kind="retriever",
    relations=("analysis.dialect_feature_effects",),
    select="""
    select
        run_id,
        retriever as measured_as,
        'dialect feature: ' || rule as dimension,
        'recall@' || k || ', ' || variant_a || ' vs ' || variant_b || ' (pair set ' || pair_set || ')' as finding,
        {recall_gap}
    from analysis.dialect_feature_effects
    """.format(recall_gap=RECALL_GAP),
)

# Each query pair's recall gap at k, in points: its mean over the pairs is the finding's effect.
register_subject_units(
    STUDY_TYPE,
    relations=("marts.fct_dialect_paired_hits",),
    select="""
    select
        run_id,
        retriever as measured_as,
        'recall@' || k || ', ' || variant_a || ' vs ' || variant_b || ' (pair set ' || pair_set || ')' as finding,
        pair_id as unit,
        100.0 * (cast(is_hit_a as integer) - cast(is_hit_b as integer)) as value,
        'the pair''s recall gap, points (' || variant_a || ' minus ' || variant_b || ')' as value_name
    from marts.fct_dialect_paired_hits
    where retriever = retriever_family
    """,
)
