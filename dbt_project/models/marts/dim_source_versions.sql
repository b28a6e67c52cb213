-- Every loaded version of every named source, with the file it came from: what a run's
-- pinned inputs (dim_runs.inputs) point at. A view, so a new ingest shows at once.
{{ config(materialized='view') }}

with versions as (
    select * from {{ ref('stg_warehouse__source_versions') }}
),

final as (
    select
        dataset,
        source_name,
        source_version,
        source_sha256,
        source_path,
        run_id as ingest_run_id,
        n_rows,
        loaded_at,
        source_version = max(source_version) over (partition by dataset, source_name) as is_latest_version
    from versions
)

select * from final
