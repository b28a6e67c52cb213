"""The rule-based dialect study of 2,000 SQuAD train questions, offline, end to end (BM25).

`biaswh run studies/squad_rule_variants.toml`: per rule, the recall difference with a paired
interval, McNemar, Holm over rules and the power statement, checked against scipy and
statsmodels; and the dashboard's one row per rule. The run is the one the docs' real-data
examples made (docs/studies/rule-variants.md, run once per session: tests/real_data_examples.py),
read only; its rows are those of its own run id.
"""

import json

import duckdb
import pytest
from scipy import stats
from statsmodels.stats.multitest import multipletests

from biaswh.ingest.dialect.rules import RULE_ORDER

pytestmark = [pytest.mark.real_data, pytest.mark.dbt]


@pytest.fixture(scope="module")
def study(real_data_examples):
    home = real_data_examples.home
    con = duckdb.connect(str(home / "warehouse.duckdb"), read_only=True)
    (run,) = con.execute(
        "select run_id from raw.runs where kind = 'study' and name = 'squad_rule_variants' and status = 'succeeded'"
    ).fetchall()
    con.execute("create temp table effects as select * from analysis.dialect_feature_effects where run_id = ?", run)
    yield home, con
    con.close()


def _effects(con) -> list[dict]:
    cursor = con.execute("select * from effects order by k, rule")
    names = [d[0] for d in cursor.description]
    return [dict(zip(names, row)) for row in cursor.fetchall()]


def test_one_row_per_rule_and_highlighted_k_over_the_pairs_each_rule_touched(study):
    home, con = study
    effects = _effects(con)
    assert {(e["rule"], e["k"]) for e in effects} == {(r, k) for r in (*RULE_ORDER, "aae_rules") for k in (5, 10, 20)}
    records = [json.loads(line) for line in (home / "generated" / "squad_rules_2000.jsonl").read_text().splitlines()]
    assert len(records) == 2000
    for e in effects:
        column = "aae_rules_query" if e["rule"] == "aae_rules" else f"rule_{e['rule']}_query"
        assert e["n_pairs"] == sum(r[column] is not None for r in records)
        assert e["only_a"] + e["only_b"] == e["n_discordant"]
        assert e["both_hit"] + e["only_a"] + e["only_b"] + e["neither"] == e["n_pairs"]


def test_statistics_agree_with_scipy_and_statsmodels(study):
    _, con = study
    effects = _effects(con)
    for e in effects:
        assert e["delta_pp"] == pytest.approx(100 * (e["only_a"] - e["only_b"]) / e["n_pairs"])
        if e["n_discordant"]:
            expected = stats.binomtest(e["only_a"], e["n_discordant"], 0.5).pvalue
            assert e["p_exact"] == pytest.approx(expected)
        else:
            assert e["p_exact"] == 1.0
        assert e["ci_low"] <= e["delta_pp"] + 1e-9 and e["delta_pp"] <= e["ci_high"] + 1e-9
    for k in (5, 10, 20):
        family = [e for e in effects if e["k"] == k and e["rule"] != "aae_rules"]
        holm = multipletests([e["p_exact"] for e in family], method="holm")[1]
        assert [e["p_holm"] for e in family] == pytest.approx(list(holm))
        every = next(e for e in effects if e["k"] == k and e["rule"] == "aae_rules")
        assert every["p_holm"] == every["p_exact"] and every["n_pairs"] == 2000


def test_the_power_statement_shows_what_2000_pairs_can_detect(study):
    _, con = study
    gap = con.execute("select detectable_gap_pp from effects where rule = 'aae_rules' and k = 10").fetchone()[0]
    assert 0 < gap < 2  # a ~1-point gap is within reach at 2,000 pairs (200 pairs: ~7 points)


def test_the_dashboard_shows_one_row_per_rule_with_its_source(study):
    home, con = study
    page = (home / "site" / "studies" / "squad_rule_variants.html").read_text()
    assert '<h1><span class="badge badge-synthetic">Synthetic data</span> squad_rule_variants' in page
    page = page[page.index("<section><h2>Dialect features</h2>") :]  # the study's page holds its dialect tests too
    for rule in RULE_ORDER:
        assert page.count(f"<td>{rule}</td>") == 3  # one row per highlighted k
    assert "eWAVE 228" in page and "Holm" in page
