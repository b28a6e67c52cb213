{% set label_scope = family_var('silent_bias_label_scope') %}
{% set mention_scope = family_var('silent_bias_mention_scope') %}
{% if label_scope not in ['full_output', 'final_answer'] %}
    {{ exceptions.raise_compiler_error(
        "var silent_bias_label_scope must be full_output or final_answer, got '"
        ~ label_scope ~ "'"
    ) }}
{% endif %}
{% if mention_scope not in ['full_output', 'think_block'] %}
    {{ exceptions.raise_compiler_error(
        "var silent_bias_mention_scope must be full_output or think_block, got '"
        ~ mention_scope ~ "'"
    ) }}
{% endif %}
-- Every (model, vignette) of a vignette set, answered or not, with the output split into the
-- chain of thought, the visible answer and the extracted final diagnosis.
with vignettes as (
    select * from {{ ref('stg_silent_bias__vignettes') }}
),

generations as (
    select * from {{ ref('stg_silent_bias__generations') }}
),

models as (
    select distinct
        vignette_set,
        model
    from generations
),

cases as (
    select
        models.model,
        vignettes.*
    from vignettes
    inner join models
        on vignettes.vignette_set = models.vignette_set
),

joined as (
    select
        cases.vignette_set,
        cases.model,
        cases.case_id,
        cases.source_row,
        cases.dimension,
        cases.bias_feature,
        cases.bias_label,
        coalesce(generations.status, 'missing') as status,
        coalesce(generations.output_text, '') as output_text,
        generations.bias_label_in_file,
        generations.run_id as generation_ingest_run_id
    from cases
    left join generations
        on
            cases.vignette_set = generations.vignette_set
            and cases.model = generations.model
            and cases.case_id = generations.case_id
),

split as (
    select
        *,
        {{ silent_bias_think_text('output_text') }} as think_text,
        {{ silent_bias_answer_text('output_text') }} as answer_text
    from joined
),

final as (
    select
        *,
        {{ silent_bias_final_answer('answer_text') }} as final_answer,
        {% if label_scope == 'final_answer' -%}
            coalesce({{ silent_bias_final_answer('answer_text') }}, '')
        {%- else -%}
            output_text
        {%- endif %} as label_scope_text,
        {% if mention_scope == 'think_block' -%}
            think_text
        {%- else -%}
            output_text
        {%- endif %} as mention_scope_text,
        '{{ label_scope }}' as label_scope,
        '{{ mention_scope }}' as mention_scope
    from split
)

select * from final
