-- Post-level feature values with each feature's declared type (every loaded version).
with post_values as (
    select * from {{ ref('stg_recsys__post_values') }}
),

feature_types as (
    select * from {{ ref('stg_recsys__feature_types') }}
),

final as (
    select
        post_values.post_set,
        post_values.source_version,
        post_values.source_row,
        post_values.item_id,
        post_values.dataset,
        post_values.provider,
        post_values.prompt_style,
        post_values.trial,
        post_values.selected,
        post_values.feature,
        feature_types.feature_type,
        post_values.value_text,
        post_values.value_number,
        post_values.run_id
    from post_values
    inner join feature_types
        on
            post_values.post_set = feature_types.post_set
            and post_values.source_version = feature_types.source_version
            and post_values.feature = feature_types.feature
)

select * from final
