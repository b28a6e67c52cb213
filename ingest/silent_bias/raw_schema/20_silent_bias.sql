-- Silent bias of chain-of-thought answers (ingest/silent_bias/vignettes.py, ingest/silent_bias/load_generations.py).

-- One row per vignette per loaded version of a vignette set.
create table if not exists raw.silent_bias_vignettes (
    run_id varchar not null,
    source_sha256 varchar not null,
    source_version integer not null,
    vignette_set varchar not null,  -- the set's name (default: the file name without suffix)
    source_row integer not null,    -- position in the file, from 1
    case_id varchar not null,
    prompt varchar not null,
    bias_feature varchar not null,  -- the demographic feature the vignette varies, e.g. black
    bias_label varchar not null,    -- the stereotyped (biased) diagnosis for that feature
    dimension varchar not null,     -- metadata.dimension, e.g. race
    metadata json                   -- the whole metadata object
);

-- One row per generation (one model's answer to one vignette) per loaded version of a file.
create table if not exists raw.silent_bias_generations (
    run_id varchar not null,
    source_sha256 varchar not null,
    source_version integer not null,
    vignette_set varchar not null,
    model varchar not null,         -- from the config, else the file name without suffix
    source_line integer not null,   -- line number in the JSONL file
    case_id varchar not null,
    prompt_sent varchar,            -- the exact prompt sent, when the file records it
    output_text varchar not null,
    status varchar not null,        -- ok, error, ... (a missing status counts as ok, as the original tooling did)
    error_message varchar,
    generated_at varchar,           -- the file's timestamp, verbatim
    generation_run_id varchar,      -- the generating tool's run id, verbatim
    model_name_in_file varchar,
    bias_feature_in_file varchar,
    bias_label_in_file varchar,
    prompt_template varchar,        -- recorded by `biaswh generate`
    sampling json,
    attributes json                 -- every other field of the line
);
