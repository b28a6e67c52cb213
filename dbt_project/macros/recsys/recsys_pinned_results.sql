{#
    The CTEs (to follow `with`, ending in `final`) of a recsys "pinned" model: per study run, the
    published file at the version the run pinned (raw.run_inputs rows of pinned_dataset) and
    what the run computed, in one column order, with whether the condition's dataset has the
    feature (recsys_dataset_only_features).
    columns: the shared columns after run_id and result_source, in order.
    missing: {side: {column: type}}: columns a side ('published' or 'computed') does not
    have, which it fills with typed nulls. computed_renames: {column: the computed relation's
    column}. computed_where: a filter on the computed relation's rows.
#}
{% macro recsys_pinned_results(
    pinned_dataset, published, computed, columns, missing, computed_renames={}, computed_where=none
) -%}
pins as (
    select * from {{ ref('stg_warehouse__run_inputs') }}
    where dataset = '{{ pinned_dataset }}'
),

published as (
    select
        pins.run_id,
        'published' as result_source,
        {{ recsys_column_list(columns, nulls=missing.get('published', {}), prefix='published.', last=true) }}
    from {{ published }} as published
    inner join pins
        on
            published.result_set = pins.source_name
            and published.source_version = pins.source_version
),

computed as (
    select
        run_id,
        'computed' as result_source,
        {{ recsys_column_list(columns, nulls=missing.get('computed', {}), renames=computed_renames, last=true) }}
    from {{ computed }}
    {% if computed_where %}where {{ computed_where }}{% endif %}
),

unioned as (
    select * from published
    union all
    select * from computed
),

run_rules as (
    {{ dataset_only_features_by_run('unioned') }}
),

final as (
    select
        unioned.*,
        {{ feature_in_dataset('unioned.feature', 'unioned.dataset', 'run_rules.dataset_only_features') }}
            as feature_in_dataset
    from unioned
    left join run_rules
        on unioned.run_id is not distinct from run_rules.run_id
)
{%- endmacro %}
