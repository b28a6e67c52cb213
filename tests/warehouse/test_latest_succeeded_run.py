"""`analyze` and `peek` read the study's latest *succeeded* run, say which, and refuse when there is none."""

from datetime import datetime, timedelta

import pytest

from biaswh.cli import main
from biaswh.warehouse.database.connection import connect

T0 = datetime(2026, 1, 1, 12, 0, 0)


def _study(tmp_path):
    path = tmp_path / "study.toml"
    path.write_text('[study]\nname = "s"\nseed = 1\n', encoding="utf-8")
    return path


def _add_runs(*runs: tuple[str, str]) -> None:
    """Study runs of study 's', oldest first, started an hour apart."""
    con = connect()
    for hour, (run_id, status) in enumerate(runs):
        started = T0 + timedelta(hours=hour)
        con.execute(
            "insert into raw.runs (run_id, kind, name, status, started_at, finished_at)"
            " values (?, 'study', 's', ?, ?, ?)",
            [run_id, status, started, started + timedelta(minutes=5)],
        )
    con.close()


def _add_pair_marts(run_id: str) -> None:
    """The few marts `peek` reads, holding one pair retrieved by ``run_id`` only."""
    con = connect()
    con.execute(f"""
        create schema marts; create schema staging;
        create table marts.fct_query_variants as select 'set' as pair_set, 'p1' as pair_id, 'sae' as variant,
            'q' as query_text_raw, 'q' as query_text, 0 as gold_doc_id, 'train' as corpus_split,
            'mapped' as mapping_status;
        create table marts.dim_corpus_documents as select 'train' as split, 0 as doc_id, 'gold text' as document_text;
        create table staging.stg_retrieval__queries as select '{run_id}' as run_id, 'set' as query_set;
        create table marts.fct_dialect_gold_ranks as select '{run_id}' as run_id, 'set' as pair_set, 'p1' as pair_id,
            'bm25' as retriever, 'bm25' as retriever_family, 'sae' as variant, 'rank 1' as gold_outcome;
        create table staging.stg_retrieval__results as select '{run_id}' as run_id, 'set' as query_set,
            'bm25' as retriever, 'p1' as query_id, 'sae' as variant, 'train' as corpus_split, 1 as rank,
            0 as doc_id, 1.5 as score;
    """)
    con.close()


def test_analyze_uses_the_latest_succeeded_run_not_a_newer_failed_one(warehouse_home, tmp_path, capsys):
    _add_runs(("old-good", "succeeded"), ("good", "succeeded"), ("bad", "failed"), ("killed", "interrupted"))
    assert main(["analyze", str(_study(tmp_path))]) == 0
    out = capsys.readouterr().out
    assert "analysing study run good, the latest that succeeded (finished 2026-01-01 13:05:00 UTC)" in out
    assert out.strip().endswith("analysed study run good")
    con = connect(read_only=True)
    target = con.execute("select parameters->>'target_run_id' from raw.runs where kind = 'analysis'").fetchone()
    con.close()
    assert target == ("good",)


def test_peek_reads_the_latest_succeeded_run_and_names_it(warehouse_home, tmp_path, capsys):
    _add_runs(("good", "succeeded"), ("bad", "failed"))
    _add_pair_marts("good")
    assert main(["peek", str(_study(tmp_path)), "--pair", "p1"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("study s, run good (the latest that succeeded, finished 2026-01-01 12:05:00 UTC)")
    assert "gold rank 1" in out and "*  1 doc 0" in out


@pytest.mark.parametrize("command", ["analyze", "peek"])
@pytest.mark.parametrize(
    ("runs", "what"),
    [
        ((), "no run"),
        ((("still-running", "running"), ("bad", "failed")), "no succeeded run (its latest, bad, failed)"),
    ],
    ids=["no run", "none succeeded"],
)
def test_without_a_succeeded_run_both_refuse_in_one_line(command, runs, what, warehouse_home, tmp_path, capsys):
    connect().close()
    _add_runs(*runs)
    study = _study(tmp_path)
    argv = [command, str(study)] + (["--pair", "p1"] if command == "peek" else [])
    assert main(argv) == 2
    error = capsys.readouterr().err
    assert error == f"biaswh: error: study 's' has {what} in this warehouse: `biaswh run {study}` first\n"
