"""The WEAT study's findings about each embedding it measures, for ``subject_findings``.

One finding per embedding, test set and test: the effect size d with its bootstrap interval
and permutation p (``marts.fct_weat_results``), judged within the study's own family
(``analysis.weat_interpretations``); a test not computed (too few words found) stays a row.
Its units (for comparing two embeddings word by word) are the target words.
"""

from __future__ import annotations

from biaswh.warehouse.relations.subject_units import register_subject_units
from biaswh.warehouse.relations.subjects import register_subject_findings

STUDY_TYPE = "word-embedding association (WEAT)"

register_subject_findings(
    STUDY_TYPE,
    kind="embedding",
    relations=("marts.fct_weat_results", "marts.dim_weat_tests", "analysis.weat_interpretations"),
    select="""
    select
        results.run_id,
        results.embedding as measured_as,
        coalesce(tests.test_title, results.test) as dimension,
        results.test_set || '/' || results.test as finding,
        'effect size d (WEAT, Caliskan et al. 2017)' as effect_name,
        results.effect_size as effect,
        results.ci_low,
        results.ci_high,
        results.p_value,
        verdicts.p_adjusted,
        verdicts.is_significant,
        verdicts.adjustment || ' within ' || verdicts.family || ' (' || verdicts.family_size
        || if(verdicts.family_size = 1, ' test', ' tests') || '), α = ' || verdicts.alpha as policy
    from marts.fct_weat_results as results
    left join marts.dim_weat_tests as tests
        on results.test_set = tests.test_set and results.test = tests.test
    left join analysis.weat_interpretations as verdicts
        on results.run_id = verdicts.run_id
        and results.embedding = verdicts.embedding
        and results.test_set = verdicts.test_set
        and results.test = verdicts.test
    """,
)

# Each used target word's association s(w, A, B), signed so that a word pulling its target set
# toward the attribute set the test pairs it with counts positive (X toward A, Y toward B): their
# mean is 0 for an embedding with no association, whatever the sets' sizes.
register_subject_units(
    STUDY_TYPE,
    relations=("marts.fct_weat_word_associations",),
    select="""
    select
        run_id,
        embedding as measured_as,
        test_set || '/' || test as finding,
        set_role || ':' || word as unit,
        if(set_role = 'target_x', association, -association) as value,
        'the target word''s signed association s(w, A, B) (X words as is, Y words negated; cosine units)'
        as value_name
    from marts.fct_weat_word_associations
    where is_used and set_role in ('target_x', 'target_y') and association is not null
    """,
)
