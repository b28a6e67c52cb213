-- Post-level feature values with each feature's declared type: what the recsys_bias job tests.
with typed as (
    select * from {{ ref('int_recsys_post_values_typed') }}
),

final as (
    select * from typed
)

select * from final
