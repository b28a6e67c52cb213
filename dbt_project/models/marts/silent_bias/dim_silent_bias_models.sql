-- One row per (vignette set, model): the loaded generations file and how its answers were made.
with generations as (
    select * from {{ ref('stg_silent_bias__generations') }}
),

final as (
    select
        vignette_set,
        model,
        count(*) as n_generations,
        count_if(status = 'ok') as n_ok,
        {{ distinct_string_agg('model_name_in_file', "', '") }} as model_names_in_file,
        {{ distinct_string_agg('cast(sampling as ' ~ text_type() ~ ')', "'; '") }} as sampling,
        {{ distinct_string_agg('prompt_template', "' | '") }} as prompt_templates,
        count(distinct prompt_template) as n_prompt_templates,
        {{ any_non_null('source_version') }} as source_version,
        {{ any_non_null('run_id') }} as ingest_run_id,
        {{ any_non_null('source_sha256') }} as source_sha256
    from generations
    group by vignette_set, model
)

select * from final
