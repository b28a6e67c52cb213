-- WEAT: embeddings, test definitions, and the per-run results of the `weat` job.

-- One row per loaded version of a word embedding; its vectors live in LanceDB (lancedb_table).
create table if not exists raw.weat_embeddings (
    run_id varchar not null,
    source_sha256 varchar not null,
    source_version integer not null,
    embedding varchar not null,         -- the name a study refers to
    format varchar not null,            -- word2vec_binary, word2vec_text, glove_text, fasttext_vec, npz, lancedb, sentence_encoder
    source_path varchar not null,
    lancedb_table varchar not null,
    n_words integer not null,
    dim integer not null,
    n_duplicate_words integer not null, -- later duplicates of a word are skipped (first one kept)
    options json                        -- e.g. the sentence template and model
);

-- One row per listed word of a test definition (long form: test, role, word).
create table if not exists raw.weat_test_words (
    run_id varchar not null,
    source_sha256 varchar not null,
    source_version integer not null,
    test_set varchar not null,          -- the definition file's name, e.g. caliskan2017
    test varchar not null,              -- e.g. weat1
    test_title varchar not null,
    set_role varchar not null,          -- target_x, target_y, attribute_a, attribute_b
    set_label varchar not null,         -- e.g. "flowers"
    position integer not null,          -- 1-based order in the listed set
    word varchar not null,
    excluded_by_definition boolean not null, -- listed in the source but excluded by the definition (e.g. by the paper)
    reference varchar
);

-- Written by the `weat` study job: one row per (run, embedding, test, role, listed word).
create table if not exists raw.weat_word_coverage (
    run_id varchar not null,
    embedding varchar not null,
    embedding_version integer not null,
    test_set varchar not null,
    test varchar not null,
    set_role varchar not null,
    position integer not null,
    word varchar not null,
    match_kind varchar not null,        -- exact, lower, casefold, missing, excluded_by_definition, duplicate
    matched_word varchar,               -- the vocabulary entry used
    used boolean not null,              -- counted in the statistics (false: missing, duplicate or balanced out)
    drop_reason varchar,                -- why a found word was not used
    association double                  -- s(w, A, B) for used target words
);

-- Written by the `weat` study job: one row per (run, embedding, test).
create table if not exists raw.weat_test_statistics (
    run_id varchar not null,
    embedding varchar not null,
    embedding_version integer not null,
    test_set varchar not null,
    test varchar not null,
    status varchar not null,            -- computed, insufficient coverage
    status_reason varchar,
    n_target_x integer not null,
    n_target_y integer not null,
    n_attribute_a integer not null,
    n_attribute_b integer not null,
    test_statistic double,              -- s(X, Y, A, B)
    effect_size double,
    effect_size_sd varchar not null,    -- which SD divides d
    ci_low double,
    ci_high double,
    ci_method varchar,
    confidence_level double,
    bootstrap_resamples integer,
    p_value double,
    p_method varchar,                   -- exact, randomised
    p_alternative varchar,
    n_permutations bigint,
    match_policy varchar not null,
    min_coverage double not null,
    balanced boolean not null,
    seed bigint not null
);

-- Written by the `weat` study job: one row per (run, embedding, test, metric, attribute set)
-- for RND, RNSB, MAC, ECT, RIPA and the word-set sensitivity of d (compute/weat/metrics.py).
create table if not exists raw.weat_metric_results (
    run_id varchar not null,
    embedding varchar not null,
    embedding_version integer not null,
    test_set varchar not null,
    test varchar not null,
    metric varchar not null,            -- rnd, rnsb, mac, ect, ripa, ripa_pairwise, d_word_sets
    attribute_set varchar not null,     -- attribute_a, attribute_b, or both
    status varchar not null,            -- computed, undefined, insufficient coverage
    status_reason varchar,
    value double,
    group_x_value double,
    group_y_value double,
    weat_sign integer,                  -- +1: reads like d > 0 (X closer to A than Y is), -1 the reverse, 0 none
    direction varchar,
    ci_low double,
    ci_high double,
    ci_method varchar,
    confidence_level double,
    bootstrap_resamples integer,
    spread_low double,
    spread_high double,
    spread_method varchar,
    p_value double,
    p_holm double,
    p_method varchar,                   -- exact, randomised
    p_alternative varchar,
    n_permutations bigint,
    n_target_x integer not null,
    n_target_y integer not null,
    n_attributes integer,
    coverage double not null,
    vectors varchar,                    -- unit or raw
    convention varchar,
    details json,
    seed bigint not null
);
