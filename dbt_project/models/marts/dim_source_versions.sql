-- Every loaded version of every named source, with the file it came from: what a run's
-- pinned inputs (dim_runs.inputs) point at. A view, so a new ingest shows at once.
{{ config(materialized='view') }}

with versions as (
    select * from {{ ref('stg_warehouse__source_versions') }}
),

latest_versions as (
    {{ latest_versions(versions=ref('stg_warehouse__source_versions')) }}
),

final as (
    select
        versions.dataset,
        versions.source_name,
        versions.source_version,
        versions.source_sha256,
        versions.source_path,
        versions.run_id as ingest_run_id,
        versions.n_rows,
        versions.loaded_at,
        latest_versions.source_version is not null as is_latest_version
    from versions
    left join latest_versions
        on
            versions.dataset = latest_versions.dataset
            and versions.source_name = latest_versions.source_name
            and versions.source_version = latest_versions.source_version
)

select * from final
