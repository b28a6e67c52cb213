-- depends_on: {{ ref('stg_warehouse__run_parameters') }}
-- The published feature importance as each study run pinned it (its version in raw.run_inputs),
-- with whether the condition's dataset has the feature (recsys_dataset_only_features).
with pins as (
    select * from {{ ref('stg_warehouse__run_inputs') }}
    where dataset = 'recsys_feature_importance'
),

published as (
    select * from {{ ref('stg_recsys__published_feature_importance') }}
),

final as (
    select
        pins.run_id,
        'published' as result_source,
        published.* exclude (ingest_run_id, source_sha256, source_row),  -- noqa: RF02
        {{ feature_in_dataset('published.feature', 'published.dataset', 'pins.run_id') }} as feature_in_dataset
    from published
    inner join pins
        on
            published.result_set = pins.source_name
            and published.source_version = pins.source_version
)

select * from final
