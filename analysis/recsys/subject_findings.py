"""The recommendation-bias study's findings about each LLM it measures, for ``subject_findings``.

One finding per provider (the model that recommended), dataset, prompt style and feature: how
the posts it recommended differ from the pool (``marts.fct_recsys_pool_vs_recommended``, the
rows this project computed): Hedges' g with its interval for a numerical feature, Cramér's V for
a categorical or binary one (no interval is computed for V), the test's raw p, and the study's
own verdict (its ``[verdicts]`` adjustment within the result set, at the run's alpha). Published
results copied from the paper are not findings of a run and are left out.
"""

from __future__ import annotations

from biaswh.warehouse.relations.subjects import register_subject_findings

STUDY_TYPE = "recommendation bias"

register_subject_findings(
    STUDY_TYPE,
    kind="llm",
    relations=("marts.fct_recsys_pool_vs_recommended", "marts.dim_runs"),
    select="""
    with tested as (
        select
            results.*,
            count(results.p_value) over (partition by results.run_id, results.result_set) as family_size,
            cast(runs.run_parameters ->> 'verdicts_alpha' as double) as alpha
        from marts.fct_recsys_pool_vs_recommended as results
        left join marts.dim_runs as runs on results.run_id = runs.run_id
        where results.run_id is not null and results.result_source = 'computed'
    )
    select
        run_id,
        provider as measured_as,
        'recommendation: ' || feature as dimension,
        feature || ', ' || dataset || ' posts, ' || prompt_style || ' prompt (' || n_recommended
        || ' recommended of ' || n_pool || ' in the pool)' as finding,
        if(feature_type = 'numerical',
            'Hedges'' g, recommended minus pool (standardised mean difference)',
            'Cramér''s V, recommended vs pool (0 to 1)') as effect_name,
        if(feature_type = 'numerical', hedges_g, bias) as effect,
        if(feature_type = 'numerical', ci_low, null) as ci_low,
        if(feature_type = 'numerical', ci_high, null) as ci_high,
        p_value,
        p_value_adjusted as p_adjusted,
        significant_adjusted as is_significant,
        case adjustment_method when 'holm' then 'Holm' when 'fdr_bh' then 'Benjamini-Hochberg'
            else adjustment_method end
        || ' within result set ' || result_set || ' (' || family_size
        || if(family_size = 1, ' test', ' tests') || '), α = ' || alpha as policy
    from tested
    """,
)
