"""DEMO ONLY: a stand-in for a team's production search function, with a planted fault.

``demo_search`` is the callable ``studies/demo_monitoring.toml`` evaluates every week as a live
system: BM25 over the contexts of the demo SQuAD file (studies/demo_data/squad_demo.json, demo
data written by us, not SQuAD), answering with the corpus's own document ids. During the weeks
of :data:`DEGRADED_WEEKS` it behaves as if half of its index had been lost (every document with
an odd id is missing), and from the week after it is whole again: a drop a monitor must alert on
once, keep open while it lasts, and resolve. Deterministic: the same week gives the same answers.
"""

from __future__ import annotations

import datetime
import json
from functools import lru_cache

from biaswh.compute.retrieval.bm25 import BM25Index
from biaswh.warehouse.settings.home import REPOSITORY_ROOT

DEMO_SQUAD = REPOSITORY_ROOT / "studies" / "demo_data" / "squad_demo.json"
# The weeks (partition start dates) the demo's index is half lost: the drop starts on the first.
DEGRADED_WEEKS = (datetime.date(2026, 1, 26), datetime.date(2026, 2, 2))


@lru_cache(maxsize=2)
def _index(degraded: bool) -> tuple[BM25Index, list[str]]:
    """The BM25 index over the demo contexts (their ids as the corpus numbers them: file order)."""
    document = json.loads(DEMO_SQUAD.read_text(encoding="utf-8"))
    contexts = list(dict.fromkeys(p["context"] for article in document["data"] for p in article["paragraphs"]))
    kept = [i for i in range(len(contexts)) if not (degraded and i % 2 == 1)]
    return BM25Index([contexts[i] for i in kept], doc_ids=kept), [str(i) for i in range(len(contexts))]


def demo_search(
    query_texts: list[str], k: int, *, partition: datetime.date | None = None
) -> list[list[tuple[str, float]]]:
    """Per query text, up to ``k`` (document id, BM25 score) pairs, best first.

    ``partition``: the week being evaluated (a monitoring tick passes it); none: a healthy week.
    """
    index, names = _index(partition in DEGRADED_WEEKS)
    return [
        [(names[doc], float(score)) for doc, score in zip(hits.doc_ids, hits.scores)]
        for hits in index.search(query_texts, depth=k)
    ]
