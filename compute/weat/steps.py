"""The ``weat`` study job (between the dbt builds).

It reads the test words and embeddings from the marts, runs every test on every embedding, and
writes ``raw.weat_word_coverage``, ``raw.weat_test_statistics`` and (RND, RNSB, MAC, ECT, RIPA
and word-set sensitivity, ``[weat.metrics]``) ``raw.weat_metric_results``; the second dbt build
turns them into ``marts.fct_weat_results`` and ``marts.fct_weat_metrics`` (read by the ``weat_report`` analysis step,
``analysis/weat/steps.py``).

Study options live under ``[weat]``: ``embeddings`` and ``test_sets`` (default: all loaded),
``tests`` (default: all), and the fields of :class:`~biaswh.compute.weat.runner.WeatSettings`.
"""

from __future__ import annotations

import dataclasses

from biaswh.compute.common.blas import one_blas_thread
from biaswh.compute.weat.config_section import WEAT
from biaswh.compute.weat.coverage import Vocabulary
from biaswh.compute.weat.metric_store import metric_row
from biaswh.compute.weat.metrics import MetricOutcome, MetricSettings, planned_rows, run_metrics
from biaswh.compute.weat.runner import ROLES, WeatResult, WeatSettings, run_weat_test
from biaswh.compute.weat.store import write_results
from biaswh.compute.weat.vectors import LanceVectors
from biaswh.warehouse.errors import UserError
from biaswh.warehouse.runs.parameters import pinned_inputs
from biaswh.warehouse.runs.study import register_config_check, register_job, register_rebuild_table
from biaswh.warehouse.settings.study_schema import register_config_section

register_config_section("weat", WEAT)

SELECTION_KEYS = ("embeddings", "test_sets", "tests")


def metric_settings(study) -> MetricSettings:
    """The study's ``[weat.metrics]`` table (defaults: every metric, unit vectors, unpaired RIPA)."""
    options = dict(study.settings.get("weat", {}).get("metrics", {}))
    try:
        return MetricSettings(**options)
    except (TypeError, ValueError) as exc:
        raise UserError(f"{study.path}: [weat.metrics] {exc}") from None


def weat_settings(study) -> tuple[WeatSettings, dict]:
    """The study's ``[weat]`` table split into statistics settings and the selection of embeddings/tests."""
    options = {k: v for k, v in study.settings.get("weat", {}).items() if k != "metrics"}
    fields = {f.name for f in dataclasses.fields(WeatSettings)}
    unknown = sorted(set(options) - fields - set(SELECTION_KEYS))
    if unknown:
        raise UserError(f"{study.path}: unknown [weat] option(s): {', '.join(unknown)}")
    try:
        settings = WeatSettings(**{k: v for k, v in options.items() if k in fields})
    except (TypeError, ValueError) as exc:
        raise UserError(f"{study.path}: [weat] {exc}") from None
    return settings, {k: options.get(k) for k in SELECTION_KEYS}


@register_config_check("weat")
def check_weat_settings(study) -> None:
    """Before any work: the ``[weat]`` table makes valid statistics settings (policy and method names),
    and ``[weat.metrics]`` valid metric settings (a metric named twice failed only at a data test)."""
    if "weat" in study.jobs:
        weat_settings(study)
        metric_settings(study)


def _default_selection(con, run_id: str, selection: dict) -> dict:
    """Unset selections default to what the study ingested itself (its pinned inputs), so a study
    never picks up embeddings or test sets that another study loaded into the same warehouse;
    a study that ingests nothing of a kind uses every loaded one."""
    pinned = {
        "embeddings": sorted(pinned_inputs(con, run_id, "weat_embeddings")),
        "test_sets": sorted(pinned_inputs(con, run_id, "weat_tests")),
    }
    return {k: (pinned.get(k) or None) if v is None else v for k, v in selection.items()}


def _selected(con, selection: dict) -> tuple[list[tuple], list[tuple]]:
    embeddings = con.execute(
        "select embedding, source_version, lancedb_table from marts.dim_weat_embeddings order by embedding"
    ).fetchall()
    tests = con.execute("select distinct test_set, test from marts.dim_weat_test_words order by all").fetchall()
    for key, available, pick in (
        ("embeddings", embeddings, lambda r: r[0]),
        ("test_sets", tests, lambda r: r[0]),
        ("tests", tests, lambda r: r[1]),
    ):
        wanted = selection[key]
        if wanted is None:
            continue
        missing = sorted(set(wanted) - {pick(r) for r in available})
        if missing:
            raise UserError(
                f"[weat] {key} not loaded: {', '.join(missing)} (loaded: "
                f"{', '.join(sorted({pick(r) for r in available})) or 'none'})"
            )
        if key == "embeddings":
            embeddings = [r for r in embeddings if r[0] in wanted]
        else:
            tests = [r for r in tests if pick(r) in wanted]
    if not embeddings or not tests:
        raise UserError("WEAT needs at least one embedding and one test: ingest word_vectors and weat_tests first")
    return embeddings, tests


def _metric_outcomes(result: WeatResult, vocabulary, vectors, settings, metrics, study_seed) -> list[MetricOutcome]:
    """The embedding metrics on the words the WEAT used; rows without numbers when coverage failed."""
    if result.status == "insufficient coverage":
        return [
            MetricOutcome(metric, role, result.status, result.status_reason, None, result.seed)
            for metric, role in planned_rows(metrics)
        ]
    used = {role: [m for m in result.matches if m.set_role == role and m.used] for role in ROLES}
    return run_metrics(
        {role: vectors[[vocabulary.index[m.matched_word] for m in used[role]]] for role in ROLES},
        {role: [m.word for m in used[role]] for role in ROLES},
        embedding=result.embedding,
        test_set=result.test_set,
        test=result.test,
        settings=metrics,
        confidence_level=settings.confidence_level,
        study_seed=study_seed,
    )


register_rebuild_table("weat", "fct_weat_results")


@register_job(
    "weat",
    writes=("raw.weat_word_coverage", "raw.weat_test_statistics", "raw.weat_metric_results"),
    reads=("marts.dim_weat_embeddings", "marts.dim_weat_test_words", "marts.dim_weat_tests"),
)
def run_weat(con, study, run_id: str) -> None:
    """Run every selected test and metric on every selected embedding and store the outcomes under ``run_id``."""
    settings, selection = weat_settings(study)
    metrics = metric_settings(study)
    embeddings, tests = _selected(con, _default_selection(con, run_id, selection))
    words = con.execute(
        "select test_set, test, set_role, position, word, excluded_by_definition"
        " from marts.dim_weat_test_words order by test_set, test, set_role, position"
    ).fetchall()
    by_test: dict[tuple, list[dict]] = {}
    for test_set, test, role, position, word, excluded in words:
        by_test.setdefault((test_set, test), []).append(
            {"set_role": role, "position": position, "word": word, "excluded_by_definition": excluded}
        )
    results, metric_rows = [], []
    # Small matrices (words x dimensions): one BLAS thread is faster and machine-independent (compute/common/blas.py).
    with one_blas_thread():
        for embedding, version, lancedb_table in embeddings:
            vectors = LanceVectors(lancedb_table)
            vocabulary = Vocabulary(vectors.words())
            for test_set, test in tests:
                result = run_weat_test(
                    by_test[(test_set, test)],
                    embedding=embedding,
                    test_set=test_set,
                    test=test,
                    vocabulary=vocabulary,
                    vectors=vectors,
                    settings=settings,
                    study_seed=study.seed,
                )
                print(
                    f"  {embedding} {test_set}/{test}: {result.status}"
                    + (
                        f" d={result.effect_size:.2f} p={result.p_value:.4g} ({result.p_method})"
                        if result.status == "computed"
                        else f" ({result.status_reason})"
                    ),
                    flush=True,
                )
                results.append((version, result))
                key = {
                    "embedding": embedding,
                    "embedding_version": version,
                    "test_set": test_set,
                    "test": test,
                    "n_target_x": result.n_target_x,
                    "n_target_y": result.n_target_y,
                    "coverage": result.coverage,
                }
                outcomes = _metric_outcomes(result, vocabulary, vectors, settings, metrics, study.seed)
                metric_rows += [metric_row(run_id, key, outcome) for outcome in outcomes]
    write_results(con, run_id, results, settings, metric_rows=metric_rows)
