-- One row per test: its title and the labels of its four word sets (for sentences and charts).
with test_words as (
    select * from {{ ref('stg_weat__test_words') }}
),

final as (
    select
        test_set,
        test,
        {{ any_non_null('test_title') }} as test_title,
        {{ any_non_null('set_label') }} filter (where set_role = 'target_x') as target_x_label,
        {{ any_non_null('set_label') }} filter (where set_role = 'target_y') as target_y_label,
        {{ any_non_null('set_label') }} filter (where set_role = 'attribute_a') as attribute_a_label,
        {{ any_non_null('set_label') }} filter (where set_role = 'attribute_b') as attribute_b_label,
        count(*) filter (where not excluded_by_definition) as n_words_listed,
        {{ any_non_null('reference') }} as reference
    from test_words
    group by test_set, test
)

select * from final
