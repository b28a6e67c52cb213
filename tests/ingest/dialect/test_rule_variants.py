"""Pairs files of rule variants, and the agreement report against human-checked variants."""

import json

import pytest

from biaswh.ingest.dialect.pairs import load_pairs
from biaswh.ingest.dialect.rule_variants import (
    agreement_with_human,
    rule_variant_records,
    variant_columns,
    write_records,
)
from biaswh.ingest.dialect.rules import RULE_ORDER
from biaswh.ingest.retrieval.squad import load_squad
from tests.conftest import DEMO_DATA, run_cli, shared_file

ITEMS = [("0", 0, "Who is running the show?"), ("1", 1, "Name the river."), ("2", 2, "What is the capital of Peru?")]


def test_records_hold_every_rule_alone_only_where_it_applies():
    records = rule_variant_records(ITEMS, seed=1)
    first = records[0]
    assert first["sae_query"] == "Who is running the show?"
    assert first["aae_rules_query"] == "Who runnin' the show?"
    assert first["rules_fired"] == ["aux_be_deletion", "g_dropping"]
    assert first["rule_aux_be_deletion_query"] == "Who running the show?"
    assert first["rule_copula_deletion_query"] is None
    assert all(records[1][f"rule_{r}_query"] is None for r in RULE_ORDER) and records[1]["rules_fired"] == []
    assert "seed 1" in first["conversion_method"]


def test_the_same_seed_writes_the_same_bytes(tmp_path):
    a = write_records(rule_variant_records(ITEMS, seed=1, rate=0.5), tmp_path / "a.jsonl")
    b = write_records(rule_variant_records(list(reversed(ITEMS)), seed=1, rate=0.5), tmp_path / "b.jsonl")
    by_id = lambda path: sorted(path.read_text().splitlines())  # noqa: E731
    assert by_id(a) == by_id(b)  # a pair's variants do not depend on the other pairs or their order


def test_missing_variants_are_skipped_when_allowed(con, tmp_path):
    load_squad(con, str(DEMO_DATA / "squad_demo.json"))
    path = write_records(rule_variant_records(ITEMS, seed=1), tmp_path / "rules.jsonl")
    load_pairs(con, path, variants=variant_columns(), cleanup="none", allow_missing_variants=True)
    rows = dict(con.execute("select variant, count(*) from raw.query_pair_variants group by 1 order by 1").fetchall())
    assert rows["sae"] == 3 and rows["aae_rules"] == 3
    assert rows["rule_copula_deletion"] == 1 and rows["rule_aux_be_deletion"] == 1
    assert "rule_negative_concord" not in rows
    runnin = con.execute("select query_text from raw.query_pair_variants where variant = 'rule_g_dropping'").fetchone()
    assert runnin == ("Who is runnin' the show?",)  # cleanup none: g-dropping is not undone


def test_agreement_report_compares_with_the_human_variant():
    pairs = [
        {"id": 1, "sae_query": "What is the capital of Peru?", "aave_query": "What the capital of Peru?"},
        {"id": 2, "sae_query": "Who is running the show?", "aave_query": "Who be running the show?"},
    ]
    report = agreement_with_human(pairs)
    assert report["summary"]["n_pairs"] == 2
    assert report["summary"]["share_rules_equal_human"] == 0.5
    assert report["per_rule"]["copula_deletion"] == {
        "fired": 1,
        "human_agrees": 1,
        "share_human_agrees": 1.0,
        "source": report["per_rule"]["copula_deletion"]["source"],
    }
    assert report["per_rule"]["g_dropping"]["share_human_agrees"] == 0.0
    assert report["pairs"][1]["distance_rules_human"] == 2 and report["pairs"][1]["distance_sae_human"] == 1
    json.dumps(report)  # serialisable as the CLI writes it


@pytest.mark.real_data
def test_the_cli_shows_our_variant_beside_each_human_one_of_the_real_pairs(tmp_path):
    pairs_path = shared_file("dialect-pairs/aave_poc_dataset_20250927-193921.json")
    report_path = tmp_path / "agreement.json"
    completed = run_cli(
        "variants", "rules", "--pairs", str(pairs_path), "--report", str(report_path), "--show", "2",
        home=tmp_path / "warehouse",
    )  # fmt: skip
    report = json.loads(report_path.read_text())
    pairs = json.loads(pairs_path.read_text("utf-8"))
    assert len(report["pairs"]) == report["summary"]["n_pairs"] == len(pairs)
    for row, pair in zip(report["pairs"], pairs):
        assert (row["sae"], row["human"]) == (pair["sae_query"], pair["aave_query"])
        assert row["rules_equal_human"] == (row["rules"] == pair["aave_query"])
    assert report["summary"]["share_rules_equal_human"] == round(
        sum(r["rules_equal_human"] for r in report["pairs"]) / len(pairs), 4
    )
    for rule, counts in report["per_rule"].items():
        assert counts["fired"] >= sum(r["rules_fired"] == [rule] for r in report["pairs"])
        assert counts["source"]
    assert "SAE:" in completed.stdout and "human:" in completed.stdout and "rules:" in completed.stdout
