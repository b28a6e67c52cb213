"""The WEAT study's findings about each embedding it measures, for ``subject_findings``.

One headline finding per embedding, test set and test: the effect size d with its bootstrap
interval and permutation p (``marts.fct_weat_results``), judged within the study's own family
(``analysis.weat_interpretations``); a test not computed (too few words found) stays a row.
Its units (for comparing two embeddings word by word) are the target words.

Beside it (``is_headline`` false), each of the test's other metrics on its own scale
(``marts.fct_weat_metrics``): RND, MAC, ECT, RIPA and RNSB with their bootstrap intervals and
permutation p, judged by the study's policy within one embedding's tests of that metric and
attribute set (``analysis.weat_metric_verdicts``); the pooled MAC and the word-set sensitivity of d
have no test and are descriptive.
"""

from __future__ import annotations

from biaswh.warehouse.relations.subject_units import register_subject_units
from biaswh.warehouse.relations.subjects import register_subject_findings

STUDY_TYPE = "word-embedding association (WEAT)"
# The policy that judged a finding, in words, from its verdict row (alias ``verdicts``).
POLICY = (
    "verdicts.adjustment || ' within ' || verdicts.family || ' (' || verdicts.family_size"
    " || if(verdicts.family_size = 1, ' test', ' tests') || '), α = ' || verdicts.alpha"
)

register_subject_findings(
    STUDY_TYPE,
    kind="embedding",
    relations=("marts.fct_weat_results", "marts.dim_weat_tests", "analysis.weat_interpretations"),
    select=f"""
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
        {POLICY} as policy
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

# The other metrics of each test, on their own scales (compute/weat/; docs/studies/weat.md), beside d.
METRIC_LABELS = {
    "rnd": "RND",
    "mac": "MAC",
    "ect": "ECT",
    "ripa": "RIPA",
    "ripa_pairwise": "RIPA pairwise",
    "rnsb": "RNSB",
    "d_word_sets": "d over resampled word sets",
}
METRIC_SCALES = {
    "rnd": "RND (Garg et al. 2018): mean over the attribute words of the distance to mean(X) minus to mean(Y)"
    " (Euclidean; negative: the attribute set is closer to X; 0 = none)",
    "mac": "MAC difference (Manzini et al. 2019): mean cosine distance of X minus of Y to the attribute words"
    " (negative: X closer; 0 = none)",
    "mac_both": "MAC (Manzini et al. 2019, WEFE's): mean cosine distance of every target word to both attribute"
    " sets (0 to 2; no test)",
    "ect": "ECT (Dev & Phillips 2019): Spearman rho of the attribute words' cosines to mean(X) and to mean(Y)"
    " (1 = no bias; tested one-sided, less coherent than chance)",
    "ripa": "RIPA (Ethayarajh et al. 2019): mean inner product of the attribute words with the unit X minus Y"
    " direction (positive: leans to X; 0 = none)",
    "ripa_pairwise": "RIPA pairwise (WEFE's): mean inner product of the attribute words with the unit x_i minus y_i"
    " directions (positive: leans to X; 0 = none)",
    "rnsb": "RNSB (Sweeney & Najafian 2019): KL divergence of P(B | target word) from uniform (0 = none, no sign);"
    " its test: the gap in mean P(B) between X and Y",
    "d_word_sets": "WEAT effect size d, interval over the words of all four sets resampled (word-set sensitivity;"
    " no test)",
}


def _case(column: str, mapping: dict[str, str]) -> str:
    arms = " ".join(f"when '{key}' then '{value.replace(chr(39), chr(39) * 2)}'" for key, value in mapping.items())
    return f"case {column} {arms} end"


register_subject_findings(
    STUDY_TYPE,
    kind="embedding",
    relations=("marts.fct_weat_metrics", "marts.dim_weat_tests", "analysis.weat_metric_verdicts"),
    headline=False,
    select=f"""
    select
        metrics.run_id,
        metrics.embedding as measured_as,
        coalesce(tests.test_title, metrics.test) as dimension,
        metrics.test_set || '/' || metrics.test || ': ' || {_case("metrics.metric", METRIC_LABELS)}
        || case metrics.attribute_set
            when 'attribute_a' then ', attribute set A (' || metrics.attribute_label || ')'
            when 'attribute_b' then ', attribute set B (' || metrics.attribute_label || ')'
            else ', both attribute sets' end as finding,
        {
        _case(
            "if(metrics.metric = 'mac' and metrics.attribute_set = 'both', 'mac_both', metrics.metric)", METRIC_SCALES
        )
    } as effect_name,
        metrics.value as effect,
        metrics.ci_low,
        metrics.ci_high,
        metrics.p_value,
        verdicts.p_adjusted,
        if(verdicts.p_adjusted is null, null, verdicts.is_significant) as is_significant,
        if(verdicts.family is null, 'descriptive: no test', {POLICY}) as policy
    from marts.fct_weat_metrics as metrics
    left join marts.dim_weat_tests as tests
        on metrics.test_set = tests.test_set and metrics.test = tests.test
    left join analysis.weat_metric_verdicts as verdicts
        on metrics.run_id = verdicts.run_id
        and metrics.embedding = verdicts.embedding
        and metrics.test_set = verdicts.test_set
        and metrics.test = verdicts.test
        and metrics.metric = verdicts.metric
        and metrics.attribute_set = verdicts.attribute_set
    """,
)
