"""``biaswh peek``: one pair of a study's latest succeeded run, as stored.

Its variants, each retriever's top k and where the gold document sits; it only reads the
warehouse.
"""

from __future__ import annotations

from biaswh.common.snippets import snippet
from biaswh.warehouse.database.connection import open_warehouse
from biaswh.warehouse.errors import UserError
from biaswh.warehouse.runs.registry import latest_succeeded_study_run
from biaswh.warehouse.runs.study import load_study


def peek(study_path: str, pair_id: str, *, k: int = 5) -> str:
    """A pair's variants, each retriever's top k with scores, and where the gold document sits.

    Reads the study's latest succeeded run (:func:`biaswh.warehouse.runs.registry.latest_succeeded_study_run`).
    """
    study = load_study(study_path, check_steps=False)
    with open_warehouse(read_only=True) as con:
        run_id, finished_at = latest_succeeded_study_run(con, study)
        variants = con.execute(
            "select v.pair_set, v.variant, v.query_text_raw, v.query_text, v.gold_doc_id, v.corpus_split,"
            " v.mapping_status"
            " from marts.fct_query_variants v where v.pair_id = ? and v.pair_set in"
            " (select distinct query_set from staging.stg_retrieval__queries where run_id = ?)"
            " order by v.pair_set, v.variant",
            [pair_id, run_id],
        ).fetchall()
        if not variants:
            raise UserError(f"pair {pair_id!r} is not among the pairs of study run {run_id}")
        pair_set, _, _, _, gold, split, status = variants[0]
        variants = [v for v in variants if v[0] == pair_set]  # the first pair set holding this pair id
        # A pair judged by a query's qrels has no one gold document: its gold is every relevant one.
        golds = (
            [gold]
            if gold is not None
            else [
                r[0]
                for r in con.execute(
                    "select doc_id from intermediate.int_retrieval_judgments_pinned where run_id = ? and query_set = ?"
                    " and query_id = ? and relevance > 0 order by relevance desc, doc_id",
                    [run_id, pair_set, pair_id],
                ).fetchall()
            ]
        )
        lines = [
            f"study {study.name}, run {run_id} (the latest that succeeded, finished"
            f" {finished_at:%Y-%m-%d %H:%M:%S} UTC), pair set {pair_set}, pair {pair_id} ({status})",
        ]
        for doc_id in golds or [None]:
            gold_text = con.execute(
                "select document_text from marts.dim_corpus_documents where split = ? and doc_id = ?", [split, doc_id]
            ).fetchone()
            lines.append(f"gold document {doc_id}: {snippet(gold_text[0] if gold_text else None)}")
        lines.append("")
        for _, variant, raw, cleaned, *_ in variants:
            lines.append(f"  {variant}: {cleaned}" + (f"   (raw: {raw})" if raw != cleaned else ""))
        ranks = con.execute(
            "select retriever, variant, gold_outcome from marts.fct_dialect_gold_ranks"
            " where run_id = ? and pair_set = ? and pair_id = ? and retriever = retriever_family"
            " order by retriever, variant",
            [run_id, pair_set, pair_id],
        ).fetchall()
        outcome = {(r, v): o for r, v, o in ranks}
        for retriever in sorted({r for r, _ in outcome}):
            lines += ["", f"{retriever}:"]
            for _, variant, *_ in variants:
                lines.append(f"  {variant}: gold {outcome.get((retriever, variant), 'not retrieved')}")
                hits = con.execute(
                    "select r.rank, r.doc_id, r.score, d.document_text from staging.stg_retrieval__results r"
                    " join marts.dim_corpus_documents d on d.split = r.corpus_split and d.doc_id = r.doc_id"
                    " where r.run_id = ? and r.query_set = ? and r.retriever = ? and r.query_id = ? and r.variant = ?"
                    " and r.rank <= ? order by r.rank, r.doc_id",
                    [run_id, pair_set, retriever, pair_id, variant, k],
                ).fetchall()
                for rank, doc_id, score, text in hits:
                    mark = "*" if doc_id in golds else " "
                    score_text = "" if score is None else f"{score:9.4f}"
                    lines.append(f"   {mark}{rank:>3} doc {doc_id:<6} {score_text:>9}  {snippet(text)}")
    return "\n".join(lines)
