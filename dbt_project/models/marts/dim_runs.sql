-- Every run with its provenance, for the dashboard index and for audits. A view, so a run's
-- status is current even while the study that built this model is still running.
{{ config(materialized='view') }}

with runs as (
    select * from {{ ref('stg_warehouse__runs') }}
),

sources as (
    select * from {{ ref('stg_warehouse__run_sources') }}
),

sources_per_run as (
    select
        run_id,
        list({ 'path': source_path, 'sha256': source_sha256, 'size_bytes': size_bytes } order by source_path) as sources
    from sources
    group by run_id
),

inputs_per_run as (
    select
        run_id,
        list({ 'dataset': dataset, 'name': source_name, 'version': source_version } order by dataset, source_name)
            as inputs
    from {{ ref('stg_warehouse__run_inputs') }}
    group by run_id
),

parameters_per_run as (
    select
        run_id,
        json_group_object(name, value) as run_parameters
    from {{ ref('stg_warehouse__run_parameters') }}
    group by run_id
),

final as (
    select
        runs.*,
        coalesce(sources_per_run.sources, []) as sources,
        coalesce(inputs_per_run.inputs, []) as inputs,
        parameters_per_run.run_parameters
    from runs
    left join sources_per_run
        on runs.run_id = sources_per_run.run_id
    left join inputs_per_run
        on runs.run_id = inputs_per_run.run_id
    left join parameters_per_run
        on runs.run_id = parameters_per_run.run_id
)

select * from final
