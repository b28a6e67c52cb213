"""Write one run's WEAT outcomes: per-word coverage and scores, and per-test statistics (raw tables)."""

from __future__ import annotations

import duckdb
import pyarrow as pa

from biaswh.compute.weat.metric_store import COLUMNS, metric_table
from biaswh.compute.weat.runner import WeatResult, WeatSettings
from biaswh.warehouse.database.transactions import registered, transaction


def _word_rows(run_id: str, embedding_version: int, result: WeatResult) -> list[dict]:
    return [
        {
            "run_id": run_id,
            "embedding": result.embedding,
            "embedding_version": embedding_version,
            "test_set": result.test_set,
            "test": result.test,
            "set_role": m.set_role,
            "position": m.position,
            "word": m.word,
            "match_kind": m.match_kind,
            "matched_word": m.matched_word,
            "used": m.used,
            "drop_reason": m.drop_reason,
            "association": result.associations.get((m.set_role, m.position)),
        }
        for m in result.matches
    ]


def _statistics_row(run_id: str, embedding_version: int, result: WeatResult, settings: WeatSettings) -> dict:
    computed = result.status == "computed"
    return {
        "run_id": run_id,
        "embedding": result.embedding,
        "embedding_version": embedding_version,
        "test_set": result.test_set,
        "test": result.test,
        "status": result.status,
        "status_reason": result.status_reason,
        "n_target_x": result.n_target_x,
        "n_target_y": result.n_target_y,
        "n_attribute_a": result.n_attribute_a,
        "n_attribute_b": result.n_attribute_b,
        "test_statistic": result.test_statistic,
        "effect_size": result.effect_size,
        "effect_size_sd": result.effect_size_sd,
        "ci_low": result.ci_low,
        "ci_high": result.ci_high,
        "ci_method": result.ci_method,
        "confidence_level": settings.confidence_level if computed else None,
        "bootstrap_resamples": settings.bootstrap_resamples if computed else None,
        "p_value": result.p_value,
        "p_method": result.p_method,
        "p_alternative": "greater (X closer to A than Y is)" if computed else None,
        "n_permutations": result.n_permutations,
        "match_policy": settings.match_policy,
        "min_coverage": settings.min_coverage,
        "balanced": settings.balance,
        "seed": result.seed,
    }


METRIC_COLUMNS = ", ".join(COLUMNS)
WORD_COLUMNS = (
    "run_id, embedding, embedding_version, test_set, test, set_role, position, word, match_kind,"
    " matched_word, used, drop_reason, association"
)
STATISTICS_COLUMNS = (
    "run_id, embedding, embedding_version, test_set, test, status, status_reason, n_target_x,"
    " n_target_y, n_attribute_a, n_attribute_b, test_statistic, effect_size, effect_size_sd,"
    " ci_low, ci_high, ci_method, confidence_level, bootstrap_resamples, p_value, p_method,"
    " p_alternative, n_permutations, match_policy, min_coverage, balanced, seed"
)


def write_results(
    con: duckdb.DuckDBPyConnection,
    run_id: str,
    results: list[tuple[int, WeatResult]],
    settings: WeatSettings,
    *,
    metric_rows: list[dict] = (),
) -> None:
    """Replace the run's rows with ``results`` ((embedding version, result) pairs) and the embedding
    metrics' ``metric_rows`` (:func:`biaswh.compute.weat.metric_store.metric_row`) in one transaction."""
    words = pa.Table.from_pylist([row for version, r in results for row in _word_rows(run_id, version, r)])
    statistics = pa.Table.from_pylist([_statistics_row(run_id, version, r, settings) for version, r in results])
    with (
        registered(con, "incoming_weat_words", words),
        registered(con, "incoming_weat_statistics", statistics),
        registered(con, "incoming_weat_metrics", metric_table(list(metric_rows))),
        transaction(con),
    ):
        con.execute("delete from raw.weat_word_coverage where run_id = ?", [run_id])
        con.execute("delete from raw.weat_test_statistics where run_id = ?", [run_id])
        con.execute("delete from raw.weat_metric_results where run_id = ?", [run_id])
        con.execute(
            f"insert into raw.weat_word_coverage ({WORD_COLUMNS}) select {WORD_COLUMNS} from incoming_weat_words"
        )
        con.execute(
            f"insert into raw.weat_test_statistics ({STATISTICS_COLUMNS})"
            f" select {STATISTICS_COLUMNS} from incoming_weat_statistics"
        )
        con.execute(
            f"insert into raw.weat_metric_results ({METRIC_COLUMNS}) select {METRIC_COLUMNS} from incoming_weat_metrics"
        )
