{{ config(**run_keyed_config()) }}
-- depends_on: {{ ref('stg_warehouse__run_parameters') }}
-- Pairs where one variant finds the gold document within k and the other does not, at the
-- highlighted k, with both texts and a snippet of the gold context.
-- The rows of fct_dialect_paired_hits at the highlighted k, computed from the paired ranks at
-- those k only: filtering the view instead spreads every pair over the whole k grid first
-- (25 M rows for 50,000 pairs x 5 retrievers x depth 100, for a few thousand examples).
with paired_ranks as (
    select * from {{ ref('fct_dialect_paired_ranks') }}
    where {{ is_new_run('run_id') }}
),

ranks as (
    select * from {{ ref('fct_dialect_gold_ranks') }}
    where {{ is_new_run('run_id') }}
),

-- the text of each relevant document as the run pinned it: its gold documents (raw), and the
-- relevant documents of its judged-query pairs (int_retrieval_pair_judgments_pinned)
documents as (
    select
        run_id,
        corpus_split,
        doc_id,
        document_text
    from {{ ref('stg_retrieval__relevant_documents') }}
    union
    select
        run_id,
        corpus_split,
        doc_id,
        document_text
    from {{ ref('int_retrieval_pair_judgments_pinned') }}
    where document_text is not null
),

-- The run's parameters once per run, not once per row (a correlated lookup per row is slow on Spark).
parameters as (
    select
        runs.run_id,
        {{ run_parameter('snippet_chars', 'runs.run_id', 'integer') }} as snippet_chars,
        {{ run_parameter('dialect_highlight_k', 'runs.run_id', 'integer[]') }} as highlight_k
    from (select distinct run_id from paired_ranks) as runs
),

-- Each highlighted k once (the view has one row per k), a bigint like the view's k.
highlighted as (
    select distinct
        run_id,
        cast(k as bigint) as k
    from ({{ select_unnested('parameters', 'run_id', 'parameters.highlight_k', 'k') }}) as unnested
),

-- fct_dialect_paired_hits's rows at the highlighted k (its k are 1..depth).
paired as (
    select {{ paired_hits_columns('paired_ranks', 'highlighted.k') }}
    from paired_ranks
    inner join highlighted
        on
            paired_ranks.run_id = highlighted.run_id
            and highlighted.k between 1 and paired_ranks.depth
),

final as (
    select
        paired.run_id,
        paired.retriever,
        paired.pair_set,
        paired.k,
        paired.pair_id,
        paired.variant_a,
        paired.variant_b,
        case when paired.is_hit_a then 'only ' || paired.variant_a else 'only ' || paired.variant_b end as outcome,
        ranks_a.query_text as query_text_a,
        ranks_b.query_text as query_text_b,
        ranks_a.gold_outcome as gold_outcome_a,
        ranks_b.gold_outcome as gold_outcome_b,
        ranks_a.gold_doc_id,
        left(documents.document_text, parameters.snippet_chars) as gold_snippet
    from paired
    inner join parameters on paired.run_id = parameters.run_id
    inner join ranks as ranks_a
        on
            paired.run_id = ranks_a.run_id
            and paired.retriever = ranks_a.retriever
            and paired.pair_set = ranks_a.pair_set
            and paired.pair_id = ranks_a.pair_id
            and paired.variant_a = ranks_a.variant
    inner join ranks as ranks_b
        on
            paired.run_id = ranks_b.run_id
            and paired.retriever = ranks_b.retriever
            and paired.pair_set = ranks_b.pair_set
            and paired.pair_id = ranks_b.pair_id
            and paired.variant_b = ranks_b.variant
    inner join documents
        on
            ranks_a.run_id = documents.run_id
            and ranks_a.corpus_split = documents.corpus_split
            and ranks_a.gold_doc_id = documents.doc_id
    where paired.is_hit_a <> paired.is_hit_b
)

select * from final
