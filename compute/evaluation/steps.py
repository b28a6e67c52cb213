"""Study job ``evaluation``: a drift series of retrieval runs over one judged query set.

```toml
[evaluation]
query_set = "squad_questions:validation"   # qrels: an ingested qrels file, else SQuAD's own context
sample = 2000                              # seeded sample of the query set's queries; omit for all
# pair_set = "dialect_pairs"               # only the SQuAD questions that pair set was made from
tune_share = 0.5                           # seeded split: fusion is chosen on 'tune', reported on 'report'

[[evaluation.runs]]                        # the series, in order; the base is [retrieval]
label = "baseline"
baseline = true                            # default: the first run
[[evaluation.runs]]
label = "bm25_k1_0.9_b_0.4"
retrieval = { bm25 = { k1 = 0.9, b = 0.4 } }   # overrides of [retrieval] for this run
[[evaluation.runs]]
label = "prod_2026-01-12"                  # a run written elsewhere (TREC run or BEIR JSON results)
run_file = "runs/prod_2026-01-12.trec"     # evaluated as retriever `system` (default: the label)
system = "prod"
```

Each run of the series is its own ``raw.runs`` row (kind ``evaluation_run``) whose outputs
are written to ``raw.retrieval_*`` like any retrieval run, and is listed in
``raw.evaluation_runs`` with its position and whether it is the baseline. All runs share
one query sample and one tune/report split (both seeded from the study seed), so their
per-query metrics pair up. Each run retrieves as the ``retrieval`` job does
(:mod:`biaswh.compute.retrieval.query_set_retrieval`): chunk by chunk, on Ray workers (and corpus shards)
under ``[compute] engine = "ray"``.
Each run's judgments are its query set's qrels, pinned by dbt when the run is first built
(``int_evaluation_judgments_pinned``); the job copies no mart into raw.
"""

from __future__ import annotations

import json
from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path

import pyarrow as pa

from biaswh.compute.common.engine import compute_settings
from biaswh.compute.evaluation.config_section import EVALUATION
from biaswh.compute.evaluation.live_runs import LIVE_QUERIES_TABLE, write_live_run
from biaswh.compute.evaluation.series import sample_queries, series_settings, tune_report_folds
from biaswh.compute.retrieval.config import config_from_settings
from biaswh.compute.retrieval.external_runs import read_external_run
from biaswh.compute.retrieval.query_set_retrieval import compute_pools, retrieve_query_set
from biaswh.compute.retrieval.query_sets import load_corpora, pin_read_versions
from biaswh.compute.retrieval.shards import check_shard_sizes
from biaswh.compute.retrieval.steps import drop_documents, prepare_dense
from biaswh.compute.retrieval.writer import RETRIEVAL_TABLES, write_outputs
from biaswh.ingest.common.versions import IngestResult
from biaswh.ingest.evaluation.qrels import check_qrels_ids, load_qrels
from biaswh.ingest.evaluation.thresholds import max_achievable, read_thresholds
from biaswh.ingest.retrieval.query_set_members import query_set_table_name
from biaswh.warehouse.database.transactions import registered, transaction
from biaswh.warehouse.errors import UserError
from biaswh.warehouse.runs.parameters import record_run_parameters, register_run_parameters
from biaswh.warehouse.runs.registry import file_sha256, start_run
from biaswh.warehouse.runs.study import register_ingester, register_job, register_rebuild_table
from biaswh.warehouse.runs.sub_runs import register_sub_runs
from biaswh.warehouse.settings.config_schema import CUTOFF, STRING
from biaswh.warehouse.settings.random_seeds import derive_seed
from biaswh.warehouse.settings.study_schema import ingest_step, register_config_section

register_config_section("evaluation", EVALUATION)
register_run_parameters({"evaluation_k": CUTOFF, "evaluation_overlap_k": CUTOFF, "evaluation_select_k": CUTOFF})


@register_ingester("qrels", options=ingest_step({"query_set": STRING, "name": STRING}, required=("query_set",)))
def ingest_qrels(con, study, step: dict) -> IngestResult:
    """``path`` (TREC, CSV or JSON qrels), ``query_set`` (e.g. ``squad_questions:validation``), optional ``name``."""
    if "query_set" not in step:
        raise UserError(f'{study.path}: [[ingest]] source = "qrels" needs a query_set')
    return load_qrels(con, study.resolve(step["path"]), query_set=step["query_set"], name=step.get("name"))


def _record_thresholds(con, run_id: str, thresholds: list[tuple], query_set: str, query_ids: list[str]) -> None:
    """Record the series' thresholds with the best value its judgments allow; warn of any that can never clear."""
    rows = []
    for metric, k, retriever, direction, threshold, severity, description in thresholds:
        best = max_achievable(con, query_set, query_ids, metric, k)
        if direction == "below" and best is not None and threshold > best:
            print(
                f"  threshold {metric}@{k} below {threshold:g} can never clear: these judgments cap"
                f" {metric}@{k} at {best:.3f} (use drop_pct, or a threshold under the cap)",
                flush=True,
            )
        rows.append([run_id, metric, k, retriever, direction, threshold, severity, description, best])
    con.executemany("insert into raw.evaluation_thresholds values (?, ?, ?, ?, ?, ?, ?, ?, ?)", rows)


def _write_external_run(
    con, child, run: dict, queries, query_set: str, config, resolve, *, record: dict, created
) -> list:
    """A run written elsewhere (``run_file``), written as the output of retriever ``system`` (default: the label)."""
    path = Path(resolve(run["run_file"]))
    split = queries[0].corpus_split
    doc_ids = dict(
        con.execute("select source_doc_id, doc_id from marts.dim_corpus_documents where split = ?", [split]).fetchall()
    )
    output = read_external_run(
        path, system=run["system"] or run["label"], queries=queries, doc_ids=doc_ids, depth=config.depth
    )
    sha = file_sha256(path)
    child.add_source(path, sha)
    output.details["external_run_sha256"] = sha
    record["external_run"] = output.details
    write_outputs(
        con,
        run_id=child.run_id,
        query_set=query_set,
        queries=queries,
        outputs=[output],
        config=config,
        record=record,
        created_at=created,
    )
    return [output]


register_rebuild_table("evaluation", "fct_evaluation_query_metrics")
# Each run of a drift series is a sub-run of its study run: built, tested and withdrawn with it.
register_sub_runs("evaluation", table="evaluation_runs", parent_column="series_run_id", order_column="position")


@register_job(
    "evaluation",
    writes=(
        *RETRIEVAL_TABLES,
        "raw.run_parameters",
        "raw.evaluation_runs",
        "raw.evaluation_query_folds",
        "raw.evaluation_thresholds",
        LIVE_QUERIES_TABLE,
    ),
    reads=(
        "marts.fct_squad_questions",
        "marts.dim_corpus_documents",
        "marts.fct_query_variants",
        "marts.fct_pair_gold_documents",
        "marts.fct_corpus_queries",
        "marts.fct_evaluation_qrels",
    ),
)
def evaluation_job(con, study, run_id: str) -> None:
    """Run every configured evaluation run and write ``raw.retrieval_*`` and ``raw.evaluation_*``."""
    settings, runs = series_settings(study)
    query_set = query_set_table_name(settings["query_set"])
    check_qrels_ids(con, query_set)
    queries = sample_queries(
        con,
        settings["query_set"] if settings["query_set"].startswith("queries:") else settings["query_set"].split(":")[1],
        sample=settings.get("sample"),
        limit=study.limit,
        seed=derive_seed(study.seed, "evaluation", "sample"),
        pair_set=settings.get("pair_set"),
    )
    folds = tune_report_folds(
        [q.query_id for q in queries],
        share=settings.get("tune_share", 0.5),
        seed=derive_seed(study.seed, "evaluation", "folds"),
    )
    split = queries[0].corpus_split
    corpora = load_corpora(con, {split})
    thresholds = read_thresholds(study.resolve(settings["thresholds"]) if settings.get("thresholds") else None)
    engine = compute_settings(study.settings)
    if engine.corpus_shards > 1:  # every run's corpus, before the first run's embeddings start Ray
        for run in runs:
            if not (run["run_file"] or run["live"]):  # the runs this job retrieves itself
                check_shard_sizes(_run_corpora(study, run, corpora), engine.corpus_shards)
    with transaction(con), compute_pools(engine) as pool_for:  # one Ray pool for the series
        pair_sets = [settings["pair_set"]] if settings.get("pair_set") else []
        pin_read_versions(con, run_id, pair_sets=pair_sets, corpus_splits={split}, query_sets=(query_set,))
        _record_thresholds(con, run_id, thresholds, query_set, [q.query_id for q in queries])
        for run in runs:
            _evaluation_run(con, study, run_id, run, query_set, queries, folds, corpora, engine, pool_for)


def _evaluation_run(
    con, study, run_id: str, run: dict, query_set: str, queries, folds, corpora_all, engine, pool_for
) -> None:
    """One run of the series: a sub-run of ``run_id`` retrieving ``queries`` (or reading its run file);
    ``pool_for`` gives the series' Ray pool for its corpora and configuration (None locally)."""
    config = config_from_settings(run["retrieval"], resolve=study.resolve)
    config = replace(config, ann_seed=derive_seed(study.seed, "evaluation", run["label"], "ann"))
    corpora = _run_corpora(study, run, corpora_all)
    child = start_run(
        con,
        kind="evaluation_run",
        name=f"{study.name}:{run['label']}",
        parameters={"series_run_id": run_id, "label": run["label"], "retrieval": run["retrieval"], "seed": study.seed},
    )
    record_run_parameters(con, child.run_id, study.run_parameters)
    provider = cache = None
    if "dense" in config.needs and not (run["run_file"] or run["live"]):
        provider, cache = prepare_dense(con, config, child.run_id, corpora, {query_set: queries}, engine=engine)
    created = datetime.now(timezone.utc).replace(tzinfo=None)
    record = config.record() | {
        "seed": study.seed,
        "label": run["label"],
        "documents_indexed": {s: len(c.doc_ids) for s, c in corpora.items()},
        "embedding": provider.describe() if provider else None,
    }
    if run["run_file"]:
        outputs = _write_external_run(
            con, child, run, queries, query_set, config, study.resolve, record=record, created=created
        )
    elif run["live"]:  # only the queries the system answered are evaluated (live_runs.py)
        outputs, answered = write_live_run(
            con, child, run, queries, query_set, config, study, record=record, created=created
        )
        queries, folds = [queries[i] for i in answered], [folds[i] for i in answered]
    else:  # the retrieval job's path: chunk by chunk, on Ray workers when the engine is Ray
        _, outputs = retrieve_query_set(
            con,
            run_id=child.run_id,
            query_set=query_set,
            queries=queries,
            corpora=corpora,
            config=config,
            provider=provider,
            cache=cache,
            bm25_indexes={},
            query_set_kind="questions",
            ray_pool=pool_for(corpora, config),
            record=record,
            created_at=created,
        )
    _record_evaluation_run(con, child.run_id, run_id, study.name, run, query_set, queries, folds, record, created)
    child.row_counts["retrieval_queries"] = len(queries)
    child.finish()
    timings = ", ".join(f"{o.retriever} {o.seconds:.2f}s" for o in outputs)
    print(f"  {run['label']}: {len(queries):,} queries; {timings}")


def _run_corpora(study, run: dict, corpora_all: dict) -> dict:
    """The corpora one run of the series indexes (``drop_documents_fraction`` of its documents left out, seeded)."""
    fraction = config_from_settings(run["retrieval"], resolve=study.resolve).drop_documents_fraction
    return drop_documents(corpora_all, fraction, seed=derive_seed(study.seed, "evaluation", run["label"], "drop"))


def _record_evaluation_run(
    con, child_run_id: str, run_id: str, series_name: str, run: dict, query_set: str, queries, folds, record, created
) -> None:
    """The sub-run's row in ``raw.evaluation_runs`` and each query's fold in ``raw.evaluation_query_folds``."""
    con.execute(
        "insert into raw.evaluation_runs values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            child_run_id,
            run_id,
            series_name,
            run["label"],
            run["position"],
            run["is_baseline"],
            query_set,
            len(queries),
            json.dumps(record, default=str, sort_keys=True),
            created,
        ],
    )
    folds_table = pa.table(
        {
            "run_id": [child_run_id] * len(queries),
            "query_set": [query_set] * len(queries),
            "query_id": [q.query_id for q in queries],
            "fold": folds,
        }
    )
    with registered(con, "_folds", folds_table):
        con.execute("insert into raw.evaluation_query_folds select * from _folds")
