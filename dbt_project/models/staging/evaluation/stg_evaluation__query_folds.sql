with source as (
    select * from {{ source('evaluation', 'evaluation_query_folds') }}
),

final as (
    select
        run_id,
        query_set,
        query_id,
        fold
    from source
)

select * from final
