"""WEAT in a study: the ``weat`` job (compute, between the dbt builds) and the ``weat_report`` analysis step.

``weat`` reads the test words and embeddings from the marts, runs every test on every
embedding, and writes ``raw.weat_word_coverage`` and ``raw.weat_test_statistics``; the second
dbt build turns them into ``marts.weat_results``. ``weat_report`` reads that mart and writes
``analysis.weat_interpretations`` and ``analysis.weat_bias_level_counts``.

Study options live under ``[weat]``: ``embeddings`` and ``test_sets`` (default: all loaded),
``tests`` (default: all), and the fields of :class:`~analysis.weat.runner.WeatSettings`.
"""

from __future__ import annotations

import dataclasses

import pyarrow as pa

from analysis.weat.coverage import Vocabulary
from analysis.weat.interpretation import interpret, level_counts
from analysis.weat.runner import WeatSettings, run_weat_test
from analysis.weat.store import write_results
from analysis.weat.vectors import LanceVectors
from warehouse.errors import UserError
from warehouse.study import register_analysis, register_job
from warehouse.transactions import transaction

SELECTION_KEYS = ("embeddings", "test_sets", "tests")
REPORT_DDL = {
    "weat_interpretations": "run_id varchar, embedding varchar, test_set varchar, test varchar, status varchar,"
    " effect_size double, p_value double, magnitude varchar, bias_level varchar,"
    " direction varchar",
    "weat_bias_level_counts": "run_id varchar, embedding varchar, bias_level varchar, severity_order integer,"
    " n_tests integer",
}


def weat_settings(study) -> tuple[WeatSettings, dict]:
    """The study's ``[weat]`` table split into statistics settings and the selection of embeddings/tests."""
    options = dict(study.settings.get("weat", {}))
    fields = {f.name for f in dataclasses.fields(WeatSettings)}
    unknown = sorted(set(options) - fields - set(SELECTION_KEYS))
    if unknown:
        raise UserError(f"{study.path}: unknown [weat] option(s): {', '.join(unknown)}")
    try:
        settings = WeatSettings(**{k: v for k, v in options.items() if k in fields})
    except (TypeError, ValueError) as exc:
        raise UserError(f"{study.path}: [weat] {exc}") from None
    return settings, {k: options.get(k) for k in SELECTION_KEYS}


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


@register_job(
    "weat",
    before="+dim_weat_embeddings +dim_weat_test_words +dim_weat_tests",
    after="path:models/staging/weat path:models/staging/warehouse path:models/marts/weat",
)
def run_weat(con, study, run_id: str) -> None:
    """Run every selected test on every selected embedding and store the outcomes under ``run_id``."""
    settings, selection = weat_settings(study)
    embeddings, tests = _selected(con, selection)
    words = con.execute(
        "select test_set, test, set_role, position, word, excluded_by_definition"
        " from marts.dim_weat_test_words order by test_set, test, set_role, position"
    ).fetchall()
    by_test: dict[tuple, list[dict]] = {}
    for test_set, test, role, position, word, excluded in words:
        by_test.setdefault((test_set, test), []).append(
            {"set_role": role, "position": position, "word": word, "excluded_by_definition": excluded}
        )
    results = []
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
    write_results(con, run_id, results, settings)


def _report_run(con, run_id: str) -> str | None:
    """The study run to report: ``run_id`` when it has results, else the latest run that has."""
    found = con.execute("select count(*) from marts.weat_results where run_id = ?", [run_id]).fetchone()[0]
    if found:
        return run_id
    row = con.execute(
        "select w.run_id from marts.weat_results w join marts.dim_runs r using (run_id)"
        " order by r.started_at desc limit 1"
    ).fetchone()
    return row[0] if row else None


@register_analysis("weat_report")
def report_weat(con, study, run_id: str) -> None:
    """Magnitude, bias level and direction per test, and the count of tests per level, per embedding."""
    report_run = _report_run(con, run_id)
    if report_run is None:
        raise UserError("no WEAT results in marts.weat_results: add the 'weat' job to the study's jobs")
    rows = con.execute(
        "select w.embedding, w.test_set, w.test, w.status, w.effect_size, w.p_value, w.ci_low, w.ci_high,"
        " t.target_x_label,"
        " t.target_y_label, t.attribute_a_label, t.attribute_b_label from marts.weat_results w"
        " join marts.dim_weat_tests t using (test_set, test) where w.run_id = ? order by all",
        [report_run],
    ).fetchall()
    interpretations, levels_by_embedding = [], {}
    for embedding, test_set, test, status, d, p, ci_low, ci_high, x_label, y_label, a_label, b_label in rows:
        if status == "computed":
            reading = interpret(
                d, p, x_label=x_label, y_label=y_label, a_label=a_label, b_label=b_label, ci_low=ci_low, ci_high=ci_high
            )
            magnitude, level, direction = reading.magnitude, reading.bias_level, reading.direction
        else:
            magnitude, level, direction = None, "not computed", f"Not computed: {status}."
        interpretations.append(
            {
                "run_id": report_run,
                "embedding": embedding,
                "test_set": test_set,
                "test": test,
                "status": status,
                "effect_size": d,
                "p_value": p,
                "magnitude": magnitude,
                "bias_level": level,
                "direction": direction,
            }
        )
        levels_by_embedding.setdefault(embedding, []).append(level)
    counts = [
        {"run_id": report_run, "embedding": embedding, "bias_level": level, "severity_order": order, "n_tests": n}
        for embedding, levels in levels_by_embedding.items()
        for order, (level, n) in enumerate(level_counts(levels).items(), start=1)
    ]
    con.execute("create schema if not exists analysis")
    with transaction(con):
        for name, records in (("weat_interpretations", interpretations), ("weat_bias_level_counts", counts)):
            con.register("incoming_weat_report", pa.Table.from_pylist(records))
            con.execute(f"create table if not exists analysis.{name} ({REPORT_DDL[name]})")
            con.execute(f"delete from analysis.{name} where run_id = ?", [report_run])
            con.execute(f"insert into analysis.{name} by name select * from incoming_weat_report")
            con.unregister("incoming_weat_report")
