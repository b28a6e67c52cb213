"""A new user's path, exactly as the docs give it: the getting-started page, then the
bring-your-own-data page, on their own BEIR-layout corpus, to that corpus's finding.

`make demo` (the one setup step) is stood in for by a copy of the demo warehouses the session
built; every other command of the two pages runs as written, in order, in one working folder
holding the user's corpus at `my-corpus/`.
"""

from __future__ import annotations

import json

from docs.examples import blocks
from tests.conftest import REPOSITORY_ROOT, copy_warehouse
from tests.docs.example_runner import ExampleRunner, prepare_workdir

PAGES = ("getting-started.md", "bring-your-own-data.md")
DOCUMENTS = [
    ("d1", "Resetting a password", "Open Settings, choose Security and click Reset password; a link is emailed."),
    ("d2", "Two-factor login", "Two-factor authentication asks for a code from your phone app at every login."),
    ("d3", "Invoices", "Invoices are issued on the first day of each month and paid by card."),
    ("d4", "Refunds", "A yearly plan is refunded in full within 30 days of purchase."),
    ("d5", "Exporting data", "Export every project as CSV from the Data menu; large exports arrive by email."),
    ("d6", "Deleting an account", "Deleting an account removes its projects after a 14-day grace period."),
    ("d7", "Team seats", "Add a seat for each member of a team from the Billing page."),
    ("d8", "Status page", "Outages and maintenance windows are announced on the status page."),
]
QUERIES = [
    ("q1", "how do I reset my password", {"d1": 2, "d2": 1}),
    ("q2", "when are invoices issued", {"d3": 2}),
    ("q3", "refund for a yearly plan", {"d4": 2}),
    ("q4", "export my projects as csv", {"d5": 2}),
    ("q5", "what happens when I delete my account", {"d6": 2}),
    ("q6", "add seats for my team", {"d7": 2, "d3": 1}),
    ("q7", "where are outages announced", {"d8": 2}),
]


def write_beir_corpus(folder) -> None:
    """A small corpus of the user's own, in the BEIR layout."""
    (folder / "qrels").mkdir(parents=True)
    with open(folder / "corpus.jsonl", "w", encoding="utf-8") as out:
        for doc_id, title, text in DOCUMENTS:
            out.write(json.dumps({"_id": doc_id, "title": title, "text": text}) + "\n")
    with open(folder / "queries.jsonl", "w", encoding="utf-8") as out:
        for query_id, text, _ in QUERIES:
            out.write(json.dumps({"_id": query_id, "text": text}) + "\n")
    with open(folder / "qrels" / "test.tsv", "w", encoding="utf-8") as out:
        out.write("query-id\tcorpus-id\tscore\n")
        for query_id, _, judged in QUERIES:
            for doc_id, grade in judged.items():
                out.write(f"{query_id}\t{doc_id}\t{grade}\n")


def test_from_the_demo_to_the_finding_of_my_own_beir_corpus(demo_site, tmp_path, capsys):
    home = copy_warehouse(demo_site.parent, tmp_path / "warehouse")  # what `make demo` leaves
    work = prepare_workdir(tmp_path / "checkout")
    write_beir_corpus(work / "my-corpus")
    runner = ExampleRunner(work, home)
    setup = 0
    for page in PAGES:
        for block in blocks(REPOSITORY_ROOT / "docs" / page):
            if block.mark == "setup":
                setup += 1  # make demo: the warehouse copied above
            elif block.mark is None:
                runner.run(block)
    with capsys.disabled():
        print(f"\nwalk-through: {runner.count} examples run, {setup} setup step stood in for")

    import biaswh

    warehouse = biaswh.open(home)
    assert warehouse.findings("my_study")["study"].to_list() == ["my_study"]
    series = warehouse.sql("select label, n_queries from raw.evaluation_runs where series_name = 'my_study'")
    assert sorted(series.rows()) == [("baseline", len(QUERIES)), ("bm25_b_0.3", len(QUERIES))]
    corpus = warehouse.sql("select count(*) as n from marts.dim_corpus_documents where split = 'my_corpus'")
    assert corpus["n"][0] == len(DOCUMENTS)
    assert "my_study" in (home / "site" / "index.html").read_text(encoding="utf-8")
