{{ config(**run_keyed_config()) }}
-- depends_on: {{ ref('stg_warehouse__run_parameters') }}
-- The 2x2 paired outcome table per (run, retriever, pair set, k, variant pair).
with paired as (
    select * from {{ ref('fct_dialect_paired_hits') }}
    where {{ is_new_run('run_id', listed=true) }}
),

counts as (
    select
        run_id,
        retriever,
        retriever_family,
        pair_set,
        k,
        variant_a,
        variant_b,
        count(*)::integer as n_pairs,
        count_if(is_hit_a and is_hit_b)::integer as both_hit,
        count_if(is_hit_a and not is_hit_b)::integer as only_a,
        count_if(is_hit_b and not is_hit_a)::integer as only_b,
        count_if(not is_hit_a and not is_hit_b)::integer as neither,
        avg(is_hit_a::integer)::double as recall_a,
        avg(is_hit_b::integer)::double as recall_b,
        ({{ double_literal('100.0') }} * (count_if(is_hit_a) - count_if(is_hit_b)) / count(*))::double as delta_pp
    from paired
    group by all
),

-- The run parameter looked up once per (retriever, k, ...) row, after the counts: in the
-- grouped select, `group by all` made the lookup a grouping key evaluated on every paired row.
final as (
    select
        *,
        {{ list_has(run_parameter('dialect_highlight_k', 'counts.run_id', 'integer[]'), 'k') }} as is_highlighted_k
    from counts
)

select * from final
