-- The evaluation runs of every drift series: position, label, baseline flag, configuration.
-- A view over staging, for the dashboards and ad hoc SQL.
{{ config(materialized='view') }}

with evaluation_runs as (
    select * from {{ ref('stg_evaluation__runs') }}
),

final as (
    select * from evaluation_runs
)

select * from final
