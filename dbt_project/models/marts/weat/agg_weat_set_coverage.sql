{{ config(**run_keyed_config()) }}
-- Coverage of each word set of each test on each embedding: counts, the found share, and the missing words.
with words as (
    select * from {{ ref('fct_weat_word_associations') }}
    where {{ is_new_run('run_id') }}
),

final as (
    select
        run_id,
        embedding,
        test_set,
        test,
        set_role,
        {{ any_non_null('set_label') }} as set_label,
        count(*) filter (where match_kind <> 'excluded_by_definition') as n_listed,
        count(*) filter (where match_kind = 'excluded_by_definition') as n_excluded_by_definition,
        count(*) filter (where is_found) as n_found,
        count(*) filter (where is_used) as n_used,
        count(*) filter (where match_kind = 'exact') as n_exact,
        count(*) filter (where match_kind = 'lower') as n_lower,
        count(*) filter (where match_kind = 'casefold') as n_casefold,
        count(*) filter (where is_found) / nullif(count(*) filter (where match_kind <> 'excluded_by_definition'), 0)
            as coverage,
        coalesce({{ ordered_list('word', 'position', where="match_kind = 'missing'") }}, {{ empty_text_list() }})
            as missing_words
    from words
    group by run_id, embedding, test_set, test, set_role
)

select * from final
