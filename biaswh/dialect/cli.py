"""``biaswh ingest pairs`` (paired queries, one row per variant) and ``biaswh peek`` (one stored pair).

``ingest pairs`` runs the loader of the study source ``pairs`` (ingest/dialect/pairs.py), for
loading by hand before a study or ``biaswh sql``; ``peek`` reads a study's latest succeeded run
(:mod:`biaswh.dialect.peek`).
"""

from __future__ import annotations

from biaswh.arguments import number
from biaswh.cli_help import LOADS, READS
from biaswh.command_registry import register_command
from biaswh.common.loading import load_by_hand
from biaswh.warehouse.errors import UserError
from biaswh.warehouse.settings.config_schema import CUTOFF


def variant_mapping(pairs: list[str] | None) -> dict[str, str] | None:
    """The ``--variant FILE_COLUMN=VARIANT`` options as a mapping, or None when none were given."""
    if not pairs:
        return None
    mapping = {}
    for item in pairs:
        label, sep, column = item.partition("=")
        if not sep or not label or not column:
            raise UserError(f"--variant expects LABEL=COLUMN, got {item!r}")
        mapping[label] = column
    return mapping


def _pairs_arguments(pairs) -> None:
    pairs.add_argument("path", help="the pairs file: JSON, JSONL or CSV, one row per pair")
    pairs.add_argument("--name", help="pair set name (default: the file name without suffix)")
    pairs.add_argument(
        "--variant",
        action="append",
        metavar="LABEL=COLUMN",
        help="a variant and its column; repeat for each (default: sae=sae_query aae=aave_query)",
    )
    pairs.add_argument("--id-column", default="id", help="column holding the pair id (default: id)")
    pairs.add_argument(
        "--squad-idx-column", default="squad_idx", help="column holding the gold SQuAD row (default: squad_idx)"
    )
    pairs.add_argument("--squad-split", default="train", help="SQuAD split the squad_idx values index")
    pairs.add_argument("--corpus", help="gold = a document of this corpus, by source id (--gold-doc-id-column)")
    pairs.add_argument(
        "--gold-doc-id-column",
        default="gold_doc_id",
        help="column holding the gold document's source id (with --corpus)",
    )
    pairs.add_argument("--query-set", help="gold = a judged query of queries:<name>, by id (--gold-query-id-column)")
    pairs.add_argument(
        "--gold-query-id-column", default="gold_query_id", help="column holding the gold query's id (with --query-set)"
    )
    pairs.add_argument("--no-cleanup", action="store_true", help="store the text as is, without the light clean-up")
    pairs.add_argument(
        "--cleanup",
        choices=("light", "seed_compatible", "none"),
        default="light",
        help="clean-up rules: light (default, corrected), seed_compatible (the original notebook's), none",
    )


@register_command(
    "ingest pairs",
    summary="paired queries (JSON, JSONL or CSV), stored one row per variant",
    arguments=_pairs_arguments,
    order=20,
    writes=True,
    explained={
        "ingest pairs": (
            "Load dialect pairs: one question in several variants with its gold (a SQuAD row, a"
            " corpus document or a judged query).",
            "biaswh ingest pairs pairs.csv --variant sae=sae_query --variant aae=aave_query",
            LOADS,
        )
    },
)
def ingest_pairs(args) -> None:
    """Load a pairs file, one row per variant, with the gold its options name."""
    from biaswh.ingest.dialect.pairs import load_pairs

    options = {
        "name": args.name,
        "variants": variant_mapping(args.variant),
        "id_column": args.id_column,
        "squad_idx_column": args.squad_idx_column,
        "squad_split": args.squad_split,
        "corpus": args.corpus,
        "gold_doc_id_column": args.gold_doc_id_column,
        "query_set": args.query_set,
        "gold_query_id_column": args.gold_query_id_column,
        "cleanup": "none" if args.no_cleanup else args.cleanup,
    }
    load_by_hand(load_pairs, args.path, **options)


def _peek_arguments(peek) -> None:
    peek.add_argument("study", help="study config (TOML)")
    peek.add_argument("--pair", required=True, help="pair id")
    peek.add_argument("-k", type=number(CUTOFF), default=5, help="hits shown per retriever and variant (default 5)")


@register_command(
    "peek",
    summary="show one pair of the study's latest succeeded run: its variants,"
    " each retriever's top k, where the gold sits",
    arguments=_peek_arguments,
    order=110,
    explained={
        "peek": (
            "Show one pair of a study's latest succeeded run: its variants, each retriever's top k and"
            " where the gold document sits.",
            "biaswh peek studies/demo.toml --pair 0",
            READS,
        )
    },
)
def run_peek(args) -> None:
    """``biaswh peek``: print :func:`biaswh.dialect.peek.peek` of the pair."""
    from biaswh.dialect.peek import peek

    print(peek(args.study, args.pair, k=args.k))
