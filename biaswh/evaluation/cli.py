"""``biaswh ingest qrels``: relevance judgments of a query set.

The same loader as the study source ``qrels`` (ingest/evaluation/qrels.py, writing
``raw.evaluation_qrels``), for loading by hand before a study or ``biaswh sql``.
"""

from __future__ import annotations

from biaswh.cli_help import LOADS
from biaswh.command_registry import register_command
from biaswh.common.loading import load_by_hand


def _qrels_arguments(qrels) -> None:
    qrels.add_argument("path", help="BEIR qrels .tsv, TREC qrels, CSV or JSON")
    qrels.add_argument("--query-set", required=True, help="queries:<name>, squad_questions:<split> or pairs:<name>")
    qrels.add_argument("--name", help="qrels name (default: the file name without suffix)")


@register_command(
    "ingest qrels",
    summary="relevance judgments: BEIR qrels .tsv, TREC qrels, CSV or JSON",
    arguments=_qrels_arguments,
    order=50,
    writes=True,
    explained={
        "ingest qrels": (
            "Load relevance judgments; every query and document id is checked first.",
            "biaswh ingest qrels my-corpus/qrels/test.tsv --query-set queries:my_queries",
            LOADS,
        )
    },
)
def ingest_qrels(args) -> None:
    """Load relevance judgments of a query set into the warehouse."""
    from biaswh.ingest.evaluation.qrels import load_qrels

    load_by_hand(load_qrels, args.path, query_set=args.query_set, name=args.name)
