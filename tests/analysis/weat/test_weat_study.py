"""The WEAT study end to end through the real CLI: ingest, dbt build, weat job, dbt build, report, dashboard."""

from __future__ import annotations

import duckdb
import pytest
import yaml

from biaswh.warehouse.settings.home import HOME_VARIABLE
from tests.conftest import DEMO_DATA, copy_warehouse, run_here, run_study_printed
from tests.fingerprints import raw_fingerprint

pytestmark = pytest.mark.dbt
CONTRACT = [
    "run_id",
    "embedding",
    "test",
    "status",
    "n_target_x",
    "n_target_y",
    "n_attribute_a",
    "n_attribute_b",
    "coverage",
    "effect_size",
    "ci_low",
    "ci_high",
    "p_value",
    "p_method",
]
HOSTILE_LABEL = "<script>alert('x')</script> & co"


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    """The demo vectors (without the sentence encoder, for speed) and a user test with a hostile label."""
    folder = tmp_path_factory.mktemp("weat-study")
    tests = yaml.safe_load((DEMO_DATA / "weat" / "demo_user_tests.yaml").read_text(encoding="utf-8"))
    tests["tests"]["filler_control"]["target_x"]["label"] = HOSTILE_LABEL
    (folder / "user_tests.yaml").write_text(yaml.safe_dump(tests), encoding="utf-8")
    config = folder / "weat_study.toml"
    config.write_text(
        f"""
[study]
name = "weat_test"
seed = 7
jobs = ["weat"]
analysis = ["weat_report"]

[[ingest]]
source = "weat_tests"
path = "builtin:caliskan2017"

[[ingest]]
source = "weat_tests"
path = "user_tests.yaml"

[[ingest]]
source = "word_vectors"
path = "{DEMO_DATA / "weat" / "demo_vectors.npz"}"
name = "demo_synthetic"

[weat]
match_policy = "casefold"
bootstrap_resamples = 1000

[weat.metrics]
bootstrap_resamples = 300
rnsb_splits = 10
""",
        encoding="utf-8",
    )
    home = folder / "home"
    printed = run_study_printed(str(config), home=home)
    return {"home": home, "config": config, "output": printed}


@pytest.fixture
def con(study):
    connection = duckdb.connect(str(study["home"] / "warehouse.duckdb"), read_only=True)
    yield connection
    connection.close()


def test_weat_results_is_the_contract_relation_reachable_unqualified(study):
    printed = run_here("sql", "select * from weat_results limit 1", "--csv", home=study["home"]).stdout
    assert printed.splitlines()[0].split(",")[:14] == CONTRACT


def test_every_test_has_one_row_per_run_and_missing_words_are_loud(con):
    rows = con.execute(
        "select run_id, test, status, coverage, effect_size, p_value, p_method, status_reason"
        " from marts.fct_weat_results"
    ).fetchall()
    assert len({r[0] for r in rows}) == 1 and len(rows) == 12  # 10 classic + 2 user tests
    by_test = {r[1]: r for r in rows}
    assert by_test["weat1"][2] == "computed" and by_test["weat1"][4] > 0.8  # planted: flowers pleasant
    assert by_test["weat7"][6] == "exact"
    for test in ("weat3", "weat6", "planets_unlisted"):
        status, coverage, d, p, reason = (
            by_test[test][2],
            by_test[test][3],
            by_test[test][4],
            by_test[test][5],
            by_test[test][7],
        )
        assert status == "insufficient coverage" and coverage < 0.8 and d is None and p is None
        assert "below the threshold" in reason
    missing = con.execute(
        "select missing_words from marts.agg_weat_set_coverage where test = 'planets_unlisted'"
        " and set_role = 'target_x' limit 1"
    ).fetchone()[0]
    assert missing == ["Mercury", "Venus", "Earth", "Mars"]


def test_reingesting_the_studys_sources_adds_nothing(study):
    from biaswh.pipeline import _ingest_step, load_plugins
    from biaswh.warehouse.database.connection import connect
    from biaswh.warehouse.runs.study import load_study

    load_plugins()
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(HOME_VARIABLE, str(study["home"]))
        con = connect()
        try:
            before = raw_fingerprint(con)
            config = load_study(study["config"])
            statuses = [_ingest_step(con, config, step).status for step in config.ingest]
            assert statuses == ["unchanged"] * 3
            assert raw_fingerprint(con) == before
        finally:
            con.close()


def test_case_matches_are_recorded(con):
    kinds = dict(
        con.execute(
            "select word, match_kind from marts.fct_weat_word_associations"
            " where test = 'weat8' and word in ('Einstein', 'NASA') group by all"
        ).fetchall()
    )
    assert kinds == {"Einstein": "lower", "NASA": "casefold"}


def test_report_counts_every_test_once_per_level(con):
    latest = con.execute(
        "select run_id from raw.runs where kind = 'study' and name = 'weat_test'"
        " and status = 'succeeded' order by started_at desc limit 1"
    ).fetchone()[0]
    assert con.execute("select count(*) from analysis.weat_interpretations where run_id = ?", [latest]).fetchone()[0]
    total = con.execute(
        "select sum(n_tests) from analysis.weat_bias_level_counts where run_id = ?", [latest]
    ).fetchone()[0]
    assert total == 12
    weat1 = con.execute(
        "select magnitude, bias_level, direction from analysis.weat_interpretations"
        " where test = 'weat1' and run_id = ?",
        [latest],
    ).fetchone()
    assert weat1[:2] == ("large", "high")
    assert weat1[2].startswith("Flowers are more associated with pleasant words than insects")


def test_dashboard_page_shows_coverage_failures_and_escapes_labels(study):
    page = (study["home"] / "site" / "studies" / "weat_test.html").read_text(encoding="utf-8")
    assert "tests were NOT computed" in page and "INSUFFICIENT COVERAGE" in page
    assert "Mercury, Venus, Earth, Mars" in page
    assert "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt; &amp; co" in page
    assert "<script>alert(" not in page
    assert "Embedding metrics beside WEAT" in page and "Most influential words of d" in page
    assert "One embedding in this run: nothing to rank." in page


def test_every_test_gets_each_metric_row_with_coverage_and_its_raw_p(con):
    rows = con.execute(
        "select test, metric, attribute_set, status, value, ci_low, ci_high, p_value, p_holm, coverage, weat_sign,"
        " attribute_label from marts.fct_weat_metrics"
    ).fetchall()
    assert len(rows) == 12 * 11  # 12 tests x (RND, ECT, RIPA per attribute set, MAC x 3, RNSB, d_word_sets)
    by_key = {(r[0], r[1], r[2]): r for r in rows}
    rnd = by_key[("weat1", "rnd", "attribute_a")]
    assert rnd[3] == "computed" and rnd[4] < 0 and rnd[10] == 1  # pleasant words closer to flowers
    assert rnd[11] == "pleasant words"
    assert all(r[3] == "insufficient coverage" and r[4] is None for k, r in by_key.items() if k[0] == "weat3")
    computed = {k for k, r in by_key.items() if k[0] == "weat1" and r[3] == "computed"}
    assert computed == {k for k in by_key if k[0] == "weat1"}  # every metric, RNSB included
    with_p = [r for r in rows if r[7] is not None]
    assert with_p and all(r[8] is None for r in rows)  # the policy's adjustment is weat_report's, not the job's
    d = by_key[("weat1", "d_word_sets", "both")]
    weat1_d = con.execute("select effect_size from marts.fct_weat_results where test = 'weat1'").fetchone()[0]
    assert d[4] == pytest.approx(weat1_d, abs=1e-9) and d[5] < d[4] < d[6] + 1e-9


def _copy_as_a_later_run(con, run_id: str, later: str) -> None:
    """Every row of ``run_id`` again as run ``later``, an hour later, with each d raised by 0.5."""
    tables = con.execute(
        "select table_schema, table_name from information_schema.columns c"
        " join information_schema.tables t using (table_catalog, table_schema, table_name)"
        " where column_name = 'run_id' and table_type = 'BASE TABLE' and table_schema in ('marts', 'analysis')"
        " or (table_schema, table_name) = ('raw', 'runs')"
    ).fetchall()
    for schema, table in set(tables):
        con.execute(
            f"insert into {schema}.{table} select * replace (? as run_id) from {schema}.{table} where run_id = ?",
            [later, run_id],
        )
    con.execute("update raw.runs set started_at = started_at + interval 1 hour where run_id = ?", [later])
    con.execute("update marts.fct_weat_results set effect_size = effect_size + 0.5 where run_id = ?", [later])


def test_a_runs_page_shows_that_run_when_a_later_run_exists(study, tmp_path):
    # The WEAT page's render(con, run_id) draws each run's page (dashboards/common/study_pages.py).
    from biaswh.dashboards.weat.page import render

    home = copy_warehouse(study["home"], tmp_path / "home")
    with duckdb.connect(str(home / "warehouse.duckdb")) as con:
        run_id, d = con.execute(
            "select run_id, effect_size from marts.fct_weat_results where test = 'weat1'"
        ).fetchone()
        _copy_as_a_later_run(con, run_id, "later-run")
        latest, earlier = render(con), render(con, run_id)
    assert "Run <code>later-run</code>" in latest and f"{d + 0.5:.2f} [" in latest
    assert f"Run <code>{run_id}</code>" in earlier and f"{d:.2f} [" in earlier
    assert "later-run" not in earlier and f"{d + 0.5:.2f} [" not in earlier


def test_the_page_prints_each_sets_coverage_in_percent(study, con):
    page = (study["home"] / "site" / "studies" / "weat_test.html").read_text(encoding="utf-8")
    shares = con.execute("select distinct coverage from marts.agg_weat_set_coverage").fetchall()
    assert {1.0} < {share for (share,) in shares}  # full coverage and at least one set with words missing
    for (share,) in shares:
        assert f"<td>{round(100 * share, 1)}%</td>" in page
    assert "<br>100% of words found" in page


def test_metric_verdicts_are_holm_families_of_one_metric_and_attribute_set_of_one_embedding(con):
    from statsmodels.stats.multitest import multipletests

    metrics = con.execute(
        "select m.run_id, m.embedding, m.metric, m.attribute_set, m.p_value, v.p_adjusted, v.is_significant,"
        " v.adjustment, v.alpha, v.family_size from marts.fct_weat_metrics as m"
        " join analysis.weat_metric_verdicts as v using (run_id, embedding, test_set, test, metric, attribute_set)"
        " where m.p_value is not null order by all"
    ).pl()
    families = metrics.group_by(["run_id", "embedding", "metric", "attribute_set"], maintain_order=True)
    sizes = [family.height for _, family in families]
    assert len(sizes) > 1 and max(sizes) > 1
    for key, family in families:  # the study declares no [verdicts]: Holm at 0.05
        reject, expected, *_ = multipletests(family["p_value"].to_numpy(), alpha=0.05, method="holm")
        assert family["p_adjusted"].to_list() == pytest.approx(list(expected), abs=1e-12), key
        assert family["is_significant"].to_list() == list(reject), key
        assert set(family["family_size"]) == {family.height} and set(family["adjustment"]) == {"Holm"}
    assert set(metrics["alpha"]) == {0.05}
    judged = con.execute("select count(*) from analysis.weat_metric_verdicts").fetchone()[0]
    assert judged == con.execute("select count(*) from marts.fct_weat_metrics").fetchone()[0]


def test_a_benjamini_hochberg_policy_at_001_judges_every_metric_and_the_page_says_so(study, tmp_path):
    """The same run re-reported under ``[verdicts] adjustment = "bh"``, ``alpha = 0.01``: every verdict and
    every sentence of the page follows it (no Holm, no 0.05 left)."""
    import types

    from statsmodels.stats.multitest import multipletests

    from biaswh.analysis.weat.steps import report_weat
    from biaswh.dashboards.weat.page import render

    home = copy_warehouse(study["home"], tmp_path / "home")
    policy = {"verdicts": {"adjustment": "bh", "alpha": 0.01}}
    with duckdb.connect(str(home / "warehouse.duckdb")) as con:
        run_id = con.execute("select distinct run_id from marts.fct_weat_metrics").fetchone()[0]
        report_weat(con, types.SimpleNamespace(settings=policy, path=study["config"]), run_id)
        metrics = con.execute(
            "select embedding, metric, attribute_set, p_value, p_adjusted, is_significant, adjustment, alpha"
            " from analysis.weat_metric_verdicts where p_value is not null order by all"
        ).pl()
        tests = con.execute(
            "select p_adjusted, is_significant, direction, adjustment, alpha from analysis.weat_interpretations"
            " where status = 'computed'"
        ).fetchall()
        page = render(con, run_id)
    for key, family in metrics.group_by(["embedding", "metric", "attribute_set"]):
        reject, expected, *_ = multipletests(family["p_value"].to_numpy(), alpha=0.01, method="fdr_bh")
        assert family["p_adjusted"].to_list() == pytest.approx(list(expected), abs=1e-12), key
        assert family["is_significant"].to_list() == list(reject), key
    assert set(zip(metrics["adjustment"], metrics["alpha"])) == {("Benjamini-Hochberg", 0.01)}
    # a p adjusted between 0.01 and 0.05 is significant under the default, not here: the planted case exists
    assert any(0.01 <= p < 0.05 for p in metrics["p_adjusted"]) or any(0.01 <= p < 0.05 for p, *_ in tests)
    for p_adjusted, significant, direction, adjustment, alpha in tests:
        assert (adjustment, alpha) == ("Benjamini-Hochberg", 0.01)
        if p_adjusted >= 0.01:
            assert not significant and direction.startswith("No evidence of a difference")
    assert "Benjamini-Hochberg" in page and "α = 0.01" in page
    assert "Holm" not in page and "α = 0.05" not in page
    shown = sum("p<sub>Benjamini-Hochberg</sub>" in cell for cell in page.split("<td>"))
    assert shown == metrics.height
