"""An evaluation series' configuration (``[evaluation]`` and its ``[[evaluation.runs]]``) and its
query sample: which runs, which queries, and the seeded tune/report split they all share."""

from __future__ import annotations

import numpy as np

from biaswh.compute.retrieval.query_sets import corpus_query_rows
from biaswh.compute.retrieval.runner import Query
from biaswh.warehouse.errors import UserError

_KEYS = {
    "query_set",
    "pair_set",
    "sample",
    "tune_share",
    "runs",
    "bootstrap_resamples",
    "alpha",
    "thresholds",
    "compare",
}


def _merged(base: dict, override: dict) -> dict:
    """``base`` with ``override`` applied key by key (nested tables merged, not replaced)."""
    out = dict(base)
    for key, value in override.items():
        out[key] = _merged(out[key], value) if isinstance(value, dict) and isinstance(out.get(key), dict) else value
    return out


def series_settings(study) -> tuple[dict, list[dict]]:
    """The checked ``[evaluation]`` table and its runs (label, baseline flag, merged ``[retrieval]``)."""
    settings = dict(study.settings.get("evaluation") or {})
    unknown = set(settings) - _KEYS
    if unknown:
        raise UserError(f"[evaluation] has unknown key(s): {', '.join(sorted(unknown))}")
    if not str(settings.get("query_set", "")).startswith(("squad_questions:", "queries:")):
        raise UserError("[evaluation] query_set must be 'squad_questions:<split>' or 'queries:<corpus query set>'")
    pair_set = settings.get("pair_set")
    if pair_set is not None and (not isinstance(pair_set, str) or not pair_set):
        raise UserError(f"[evaluation] pair_set must name an ingested pair set, got {pair_set!r}")
    if pair_set is not None and not settings["query_set"].startswith("squad_questions:"):
        raise UserError("[evaluation] pair_set needs query_set = 'squad_questions:<split>' (its pairs' questions)")
    sample = settings.get("sample")
    if sample is not None and (not isinstance(sample, int) or isinstance(sample, bool) or sample < 1):
        raise UserError(f"[evaluation] sample must be a positive number of queries, got {sample!r}")
    share = settings.get("tune_share", 0.5)
    if not isinstance(share, (int, float)) or not 0 < share < 1:
        raise UserError(f"[evaluation] tune_share must be between 0 and 1, got {share!r}")
    runs = settings.get("runs") or [{"label": "baseline"}]
    labels = [r.get("label") for r in runs]
    if not all(isinstance(x, str) and x for x in labels) or len(set(labels)) != len(labels):
        raise UserError("[[evaluation.runs]] each run needs a unique label")
    baselines = [r["label"] for r in runs if r.get("baseline")]
    if len(baselines) > 1:
        raise UserError(f"[[evaluation.runs]] only one run can be the baseline, not {', '.join(baselines)}")
    base = dict(study.settings.get("retrieval") or {})
    resolved = []
    for position, run in enumerate(runs):
        extra = set(run) - {"label", "baseline", "retrieval", "run_file", "system", "live"}
        if extra:
            raise UserError(f"[[evaluation.runs]] {run['label']}: unknown key(s) {', '.join(sorted(extra))}")
        if "run_file" in run and "live" in run:
            raise UserError(f"[[evaluation.runs]] {run['label']}: give run_file or live, not both")
        retrieval = _merged(base, run.get("retrieval", {}))
        retrieval["query_sets"] = [settings["query_set"]]
        resolved.append(
            {
                "label": run["label"],
                "position": position,
                "is_baseline": run["label"] == (baselines[0] if baselines else labels[0]),
                "retrieval": retrieval,
                "run_file": run.get("run_file"),
                "system": run.get("system"),
                "live": run.get("live"),
            }
        )
    return settings, resolved


def sample_queries(
    con, split: str, *, sample: int | None, limit: int | None, seed: int, pair_set: str | None = None
) -> list[Query]:
    """The split's questions (relevant document: their own context), a seeded sample when asked.

    ``split`` is a SQuAD split, or ``queries:<name>``: a corpus query set (its judgments: its qrels).
    ``pair_set``: only the SQuAD questions that pair set's pairs were made from (their reference
    wording, as SQuAD has it), so a retriever is evaluated on the dialect study's own questions.
    """
    if split.startswith("queries:"):
        rows = [(q, text, None, corpus) for q, text, corpus in corpus_query_rows(con, split.split(":", 1)[1])]
    else:
        rows = [
            (row_idx, question, doc_id, split)
            for row_idx, question, doc_id in con.execute(
                "select row_idx, question, doc_id from marts.fct_squad_questions where split = ?"
                + (
                    " and row_idx in (select squad_idx from marts.fct_pair_gold_documents where pair_set = ?"
                    " and squad_split = ? and mapping_status = 'mapped')"
                    if pair_set
                    else ""
                )
                + " order by row_idx",
                [split, pair_set, split] if pair_set else [split],
            ).fetchall()
        ]
    if not rows and pair_set:
        raise UserError(
            f"[evaluation] pair_set {pair_set!r}: no pair of it maps to a question of SQuAD split {split!r};"
            ' ingest the pairs (source = "pairs") over that split first'
        )
    if not rows:
        raise UserError(f"[evaluation] no SQuAD questions for split {split!r}: ingest that split first")
    if sample is not None and sample < len(rows):
        chosen = np.sort(np.random.default_rng(seed).choice(len(rows), size=sample, replace=False))
        rows = [rows[i] for i in chosen]
    rows = rows[:limit] if limit is not None else rows
    return [Query(str(i), "question", corpus, q, d) for i, q, d, corpus in rows]


def tune_report_folds(query_ids: list[str], *, share: float, seed: int) -> list[str]:
    """A seeded split of the queries: ``round(share * n)`` of them are 'tune', the rest 'report'."""
    order = np.random.default_rng(seed).permutation(len(query_ids))
    n_tune = int(round(share * len(query_ids)))
    folds = np.array(["report"] * len(query_ids), dtype=object)
    folds[order[:n_tune]] = "tune"
    return folds.tolist()
