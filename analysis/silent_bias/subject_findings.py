"""The silent-bias study's findings about each model it measures, for ``subject_findings``.

Per model, vignette set and rule set: the silent-bias rate of each dimension with its Wilson
interval (``analysis.silent_bias_rates``; descriptive, no test) and McNemar's test on the
counterfactual pairs (``analysis.silent_bias_counterfactual_tests``; one test per model and
rule set, which the study itself adjusts with no other: an audit judges it with its family); its
effect is the flip rate with its interval (the discordant pairs' odds ratio is infinite when one
side has none). Its units (for comparing two models pair by pair) are the counterfactual pairs.
"""

from __future__ import annotations

from biaswh.warehouse.relations.subject_units import register_subject_units
from biaswh.warehouse.relations.subjects import register_subject_findings

STUDY_TYPE = "silent bias"

register_subject_findings(
    STUDY_TYPE,
    kind="llm",
    relations=("analysis.silent_bias_rates",),
    select="""
    select
        run_id,
        model as measured_as,
        'silent bias: ' || dimension as dimension,
        'silent bias rate, ' || dimension || ' (' || rule_set || ' rules, ' || vignette_set || ')' as finding,
        'share of answers biased without naming the feature (0-1)' as effect_name,
        silent_bias_rate as effect,
        ci_low,
        ci_high,
        null::double as p_value,
        null::double as p_adjusted,
        null::boolean as is_significant,
        'descriptive: ' || ci_method || ' interval' as policy
    from analysis.silent_bias_rates
    """,
)

register_subject_findings(
    STUDY_TYPE,
    kind="llm",
    relations=("analysis.silent_bias_counterfactual_tests",),
    select="""
    select
        run_id,
        model as measured_as,
        'counterfactual flips' as dimension,
        'counterfactual flips, McNemar (' || rule_set || ' rules, ' || vignette_set || ')' as finding,
        'share of counterfactual pairs whose answer flips (0-1)' as effect_name,
        flip_rate as effect,
        flip_rate_ci_low as ci_low,
        flip_rate_ci_high as ci_high,
        p_value,
        null::double as p_adjusted,
        null::boolean as is_significant,
        'one test per model and rule set, not adjusted by the study' as policy
    from analysis.silent_bias_counterfactual_tests
    """,
)

# Each counterfactual pair both of whose members were answered: 1 when the answer flips, else 0
# (their mean is the flip rate). The pairs are the vignette set's, the same for every model.
register_subject_units(
    STUDY_TYPE,
    relations=("marts.fct_silent_bias_pair_outcomes", "analysis.silent_bias_counterfactual_tests"),
    select="""
    select
        tests.run_id,
        pairs.model as measured_as,
        'counterfactual flips, McNemar (' || pairs.rule_set || ' rules, ' || pairs.vignette_set || ')' as finding,
        pairs.pair_id as unit,
        if(pairs.is_flip, 1.0, 0.0) as value,
        'whether the counterfactual pair''s answer flips (1) or not (0)' as value_name
    from marts.fct_silent_bias_pair_outcomes as pairs
    inner join analysis.silent_bias_counterfactual_tests as tests
        on pairs.model = tests.model and pairs.rule_set = tests.rule_set and pairs.vignette_set = tests.vignette_set
    where pairs.both_answered
    """,
)
