-- Runs recorded before `recsys_alpha` became the one verdict alpha ([verdicts] alpha) judged their
-- recommendation tests at that level: their `recsys_alpha` row is read as `verdicts_alpha`.
with source as (
    select * from {{ source('warehouse', 'run_parameters') }}
),

recorded_verdicts_alpha as (
    select distinct run_id from source
    where name = 'verdicts_alpha'
),

final as (
    select
        source.run_id,
        case when source.name = 'recsys_alpha' then 'verdicts_alpha' else source.name end as name,
        source.value
    from source
    left join recorded_verdicts_alpha as recorded
        on source.run_id = recorded.run_id
    where not (source.name = 'recsys_alpha' and recorded.run_id is not null)
)

select * from final
