-- depends_on: {{ ref('stg_warehouse__run_parameters') }}
-- Which variants are compared in each (run, pair set): the reference variant (var
-- dialect_reference_variant, else the alphabetically first) against every other variant.
-- The variants are those of the pair set's judged queries (the rows of fct_dialect_gold_ranks).
with queries as (
    select * from {{ ref('int_retrieval_queries_judged') }}
    where query_set_kind = 'pairs'
),

variants as (
    select distinct
        run_id,
        query_set as pair_set,
        variant
    from queries
),

reference_variants as (
    select
        run_id,
        pair_set,
        coalesce(
            max(
                case when variant = {{ run_parameter('dialect_reference_variant', 'variants.run_id') }} then variant end
            ),
            min(variant)
        ) as variant_a
    from variants
    group by all
),

final as (
    select
        reference_variants.run_id,
        reference_variants.pair_set,
        reference_variants.variant_a,
        variants.variant as variant_b
    from reference_variants
    inner join variants
        on
            reference_variants.run_id = variants.run_id
            and reference_variants.pair_set = variants.pair_set
            and reference_variants.variant_a <> variants.variant
)

select * from final
