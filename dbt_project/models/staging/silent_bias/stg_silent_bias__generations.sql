-- Only the latest loaded version of each (vignette set, model) generations file.
with source as (
    select * from {{ source('silent_bias', 'silent_bias_generations') }}
),

latest_versions as (
    {{ latest_versions('silent_bias_generations', 'source_name') }}
),

final as (
    select
        source.vignette_set,
        source.model,
        source.case_id,
        source.source_line,
        source.prompt_sent,
        source.output_text,
        lower(trim(source.status)) as status,
        source.error_message,
        source.generated_at,
        source.generation_run_id,
        source.model_name_in_file,
        source.bias_feature_in_file,
        source.bias_label_in_file,
        source.prompt_template,
        source.sampling,
        source.attributes,
        source.source_version,
        source.run_id,
        source.source_sha256
    from source
    inner join latest_versions
        on
            source.vignette_set || '/' || source.model = latest_versions.source_name
            and source.source_version = latest_versions.source_version
)

select * from final
