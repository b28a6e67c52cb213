"""Same config, same results: two runs of the demo evaluation series give the same alerts.

Every Monte Carlo seed of an alert's test derives from the study seed and the check's identity,
never from a run id; only the latency alerts (``depends_on_machine``) may differ, and the run
comparison (``biaswh diff``) leaves exactly those rows out. The second run trains the series' ANN
index (``dense_ivf_flat``) anew, as a fresh warehouse does: its partitions are seeded too.
"""

from __future__ import annotations

import shutil

import duckdb
import pytest

from biaswh.analysis.common.result_rows import rows_close
from biaswh.analysis.common.run_comparison import compare_runs, results_identical
from tests.conftest import copy_warehouse, run_here, run_study_here
from tests.dbt_project.conftest import EVALUATION_RUNS, EVALUATION_STUDY, demo_vectors

pytestmark = pytest.mark.dbt

ALERTS = (
    "select label, position, query_set, retriever, metric, value, baseline_value, is_significant, family,"
    " family_size, p_value, p_adjusted, change_ci_low, change_ci_high, p_method, ci_method"
    " from analysis.evaluation_alerts where series_run_id = ? and not depends_on_machine order by all"
)


MACHINE = "select count(*) from analysis.evaluation_alerts where depends_on_machine"
DENSE_RANKINGS = (
    "select query_id, variant, rank, doc_id, score from raw.retrieval_results join raw.evaluation_runs using (run_id)"
    " where series_run_id = ? and label = ? and retriever = 'dense' order by all"
)


@pytest.fixture(scope="module")
def rerun(demo_evaluation, tmp_path_factory):
    """A copy of the demo evaluation warehouse after a second run of the same config: (connection, run ids).

    The copy's ANN indexes are removed first, so the second run trains its index again, as a run
    in a fresh warehouse does (LanceDB's own training starts unseeded: 25 and 26 alerts).
    """
    folder = tmp_path_factory.mktemp("evaluation-rerun")
    home = copy_warehouse(demo_evaluation[0], folder / "warehouse")
    indexes = list((home / "lancedb").glob("ann_*.lance"))
    assert indexes  # the first run's dense_ivf_flat index
    for index in indexes:
        shutil.rmtree(index)
    with demo_vectors(demo_evaluation[0], folder):  # the first run's vectors: the rerun reads them, as a user's does
        run_study_here(str(EVALUATION_STUDY), home=home, site=False)  # rows only: no site drawn
    con = duckdb.connect(str(home / "warehouse.duckdb"), read_only=True)
    found = con.execute(EVALUATION_RUNS).fetchall()
    runs = [run_id for (run_id,) in found]
    yield con, runs
    con.close()


def test_two_runs_of_the_evaluation_demo_give_the_same_alerts_but_for_latency(rerun):
    con, (first, second) = rerun
    alerts = [con.execute(ALERTS, [run]).fetchall() for run in (first, second)]
    # not vacuous: tested alerts whose bootstrap interval and p came from seeded resamples
    assert any(row[12] is not None for row in alerts[0]) and any(row[7] for row in alerts[0])
    # a mean's last bits follow the order DuckDB's threads summed in: equal within 1e-9 (result_rows)
    differing = [(a, b) for a, b in zip(*alerts) if not rows_close(a, b)]
    assert len(alerts[0]) == len(alerts[1]) and not differing, differing[:2]


def test_the_ann_run_ranks_the_same_documents_with_the_same_scores_from_an_index_trained_again(rerun):
    con, (first, second) = rerun
    ann = [con.execute(DENSE_RANKINGS, [run, "dense_ivf_flat"]).fetchall() for run in (first, second)]
    exact = con.execute(DENSE_RANKINGS, [first, "baseline"]).fetchall()
    # not vacuous: probing 1 of 4 partitions, the index finds fewer documents than exact search ranks
    assert 0 < len(ann[0]) < len(exact)
    assert ann[0] == ann[1]  # the same index: the same float32 distances, not merely close ones


def test_biaswh_diff_finds_no_result_that_differs_between_the_two_runs(rerun):
    con, (first, second) = rerun
    differences = compare_runs(con, first, second)
    assert results_identical(differences), [d.line() for d in differences]


def test_a_series_built_before_depends_on_machine_existed_is_analysed_again(demo_evaluation, tmp_path):
    # marts built by an older version lack the column: `biaswh analyze` applies the mart's rule
    home = copy_warehouse(demo_evaluation[0], tmp_path / "warehouse")
    with duckdb.connect(str(home / "warehouse.duckdb")) as con:
        ((run,),) = con.execute(EVALUATION_RUNS).fetchall()
        before = con.execute(ALERTS.replace("not depends_on_machine", "true"), [run]).fetchall()
        machine = con.execute(MACHINE).fetchone()
        con.execute("alter table marts.fct_evaluation_alert_checks drop column depends_on_machine")
    analysed = run_here("analyze", str(EVALUATION_STUDY), home=home)
    assert analysed.returncode == 0 and run[:12] in analysed.stdout
    with duckdb.connect(str(home / "warehouse.duckdb"), read_only=True) as con:
        after = con.execute(ALERTS.replace("not depends_on_machine", "true"), [run]).fetchall()
        assert con.execute(MACHINE).fetchone() == machine
    assert len(after) == len(before) > 0 and all(rows_close(a, b) for a, b in zip(before, after))
