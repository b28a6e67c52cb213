{#- The columns of fct_dialect_paired_hits for paired ranks `pairs` (fct_dialect_paired_ranks's
    columns, by its alias) at the cutoff `k` (a column expression): a hit is a gold rank within k,
    a miss (a null rank) never is. The view spreads each pair over k = 1..depth; the error examples
    take the same columns at the highlighted k only. -#}
{% macro paired_hits_columns(pairs, k) -%}
    {{ pairs }}.run_id,
    {{ pairs }}.retriever,
    {{ pairs }}.retriever_family,
    {{ pairs }}.pair_set,
    {{ pairs }}.pair_id,
    {{ k }} as k,
    {{ pairs }}.variant_a,
    {{ pairs }}.variant_b,
    coalesce({{ pairs }}.rank_of_gold_a <= {{ k }}, false) as is_hit_a,
    coalesce({{ pairs }}.rank_of_gold_b <= {{ k }}, false) as is_hit_b
{%- endmacro %}
