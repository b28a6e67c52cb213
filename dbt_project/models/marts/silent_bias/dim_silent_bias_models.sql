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
        string_agg(distinct model_name_in_file, ', ' order by model_name_in_file) as model_names_in_file,
        string_agg(distinct sampling::varchar, '; ' order by sampling::varchar) as sampling,
        string_agg(distinct prompt_template, ' | ' order by prompt_template) as prompt_templates,
        count(distinct prompt_template) as n_prompt_templates,
        any_value(source_version) as source_version,
        any_value(run_id) as ingest_run_id,
        any_value(source_sha256) as source_sha256
    from generations
    group by vignette_set, model
)

select * from final
