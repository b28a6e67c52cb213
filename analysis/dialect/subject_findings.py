"""The dialect studies' findings about each retriever they measure, for ``subject_findings``.

One finding per retriever, pair set, highlighted k and variant pair: the recall gap of the
paired test (``analysis.dialect_paired_tests``); and per dialect rule and k, the recall gap of
the pairs the rule changes (``analysis.dialect_feature_effects``); each judged within the
study's own family.
"""

from __future__ import annotations

from warehouse.subjects import register_subject_findings

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
