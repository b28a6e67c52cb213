-- One row per evaluation run whose answers came from a live system: how many queries it was
-- asked, answered and failed (its metrics are over the answered ones) and what version it reported.
-- A view over staging: small, and current for the dashboards and ad hoc SQL.
{{ config(materialized='view') }}

with live_queries as (
    select * from {{ ref('stg_evaluation__live_queries') }}
),

final as (
    select
        run_id,
        query_set,
        count(*) as n_asked,
        count(case when status = 'answered' then 1 end) as n_answered,
        count(case when status = 'failed' then 1 end) as n_failed,
        count(case when status = 'failed' then 1 end) > 0 as is_partial,
        min(system_version) as system_version,
        count(distinct system_version) as n_system_versions,
        max(attempts) as max_attempts
    from live_queries
    group by run_id, query_set
)

select * from final
