-- Retrieval evaluation: relevance judgments and the drift series of evaluation runs.

-- One row per judgment of a qrels file (TREC `qid 0 docid rel`, JSON or CSV), one version per
-- file content (ingest/common/versions.py); staging reads the latest version of each qrels name.
create table if not exists raw.evaluation_qrels (
    run_id varchar not null,
    source_sha256 varchar not null,
    source_version integer not null,
    qrels_name varchar not null,         -- the [[ingest]] step's name (default: the file stem)
    query_set varchar not null,          -- as stored by the retrieval job, e.g. squad_questions_validation
    source_row integer not null,         -- 1-based line (TREC, CSV without header: data line) or list index + 1 (JSON)
    query_id varchar not null,           -- row_idx for SQuAD questions, pair_id for pairs
    doc_id integer not null,             -- marts.dim_corpus_documents.doc_id of the query set's split
    relevance integer not null           -- graded: 0 = judged not relevant, 1, 2, ... (trec_eval gain)
);

-- One row per evaluation run of a drift series (compute/evaluation/steps.py): each run is its
-- own raw.runs row (kind evaluation_run) whose retrieval output is in raw.retrieval_*.
create table if not exists raw.evaluation_runs (
    run_id varchar not null,             -- the evaluation run (raw.runs kind evaluation_run)
    series_run_id varchar not null,      -- the study run that produced the series
    series_name varchar not null,        -- the study name
    label varchar not null,              -- e.g. baseline, bm25_k1_0.9_b_0.4
    position integer not null,           -- order in the series (0 = first)
    is_baseline boolean not null,        -- the run every other run of the series is compared with
    query_set varchar not null,
    n_queries integer not null,
    configuration json not null,         -- the resolved [retrieval] settings of this run
    created_at timestamp not null
);

-- The seeded split of a run's queries: fusion weights are chosen on 'tune', reported on 'report'.
create table if not exists raw.evaluation_query_folds (
    run_id varchar not null,
    query_set varchar not null,
    query_id varchar not null,
    fold varchar not null                -- tune or report
);

-- The alert thresholds a drift series was checked against, recorded by the evaluation job
-- from `[evaluation] thresholds` (a CSV like dbt_project/seeds/evaluation/evaluation_alert_thresholds.csv,
-- the documented default): a later edit of the seed never changes a finished series' alerts.
create table if not exists raw.evaluation_thresholds (
    series_run_id varchar not null,
    metric varchar not null,
    k integer,
    retriever varchar not null,
    direction varchar not null,
    threshold double not null,
    severity varchar not null,
    description varchar,
    max_achievable double               -- the best value the series' judgments allow (precision/recall@k); null if 1
);

-- One row per query a live system was asked in an evaluation run (compute/evaluation/live_runs.py):
-- answered or failed, with why; only answered queries are in raw.retrieval_* and the metrics.
create table if not exists raw.evaluation_live_queries (
    run_id varchar not null,             -- the evaluation run (raw.runs kind evaluation_run)
    query_set varchar not null,
    query_id varchar not null,
    variant varchar not null,
    status varchar not null,             -- answered or failed
    n_hits integer not null,             -- documents in the answer (0 for a failure)
    latency_ms double,                   -- the query's own call or request, retries included
    attempts integer not null,           -- requests sent (1 + retries); 1 for a callable
    failure_reason varchar,              -- e.g. 'no complete reply within the 10 s deadline'; null when answered
    system_version varchar               -- the version the endpoint reported with its answer, if any
);
