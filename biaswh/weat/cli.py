"""``biaswh ingest vectors | weat-tests``: word vectors and WEAT test definitions.

The same loaders as the study sources (ingest/weat/), for loading by hand before a study or
``biaswh sql``.
"""

from __future__ import annotations

from biaswh.cli_help import LOADS
from biaswh.command_registry import register_command
from biaswh.common.loading import load_by_hand

VECTOR_FORMATS = ("auto", "word2vec_binary", "word2vec_text", "glove_text", "fasttext_vec", "npz", "lancedb")


def _vectors_arguments(vectors) -> None:
    vectors.add_argument("path", help="the vectors file or LanceDB folder")
    vectors.add_argument("--name", required=True, help="the embedding's name, as studies refer to it")
    vectors.add_argument(
        "--format",
        default="auto",
        choices=list(VECTOR_FORMATS),
        help="the file's format (default: auto, detected from the file)",
    )
    vectors.add_argument("--table", help="table to read when the path is a LanceDB folder")


@register_command(
    "ingest vectors",
    summary="word vectors for WEAT: word2vec .bin/.txt, GloVe, fastText .vec,"
    " .npz (words, vectors) or a LanceDB folder",
    arguments=_vectors_arguments,
    order=60,
    writes=True,
    explained={
        "ingest vectors": (
            "Load word vectors for WEAT.",
            "biaswh ingest vectors vectors.npz --name my_embedding",
            LOADS,
        )
    },
)
def ingest_word_vectors(args) -> None:
    """Load a word-vector file (options as :func:`biaswh.ingest.weat.word_vectors.load_word_vectors`)."""
    from biaswh.ingest.weat.word_vectors import load_word_vectors

    load_by_hand(load_word_vectors, args.path, name=args.name, format=args.format, table=args.table)


def _tests_arguments(weat_tests) -> None:
    weat_tests.add_argument("path", help="a YAML/JSON test file, or builtin:caliskan2017 / builtin:wefe_weat")
    weat_tests.add_argument("--name", help="test set name (default: the file's name field)")


@register_command(
    "ingest weat-tests",
    summary="WEAT test definitions (YAML/JSON) or builtin:caliskan2017",
    arguments=_tests_arguments,
    order=70,
    writes=True,
    explained={
        "ingest weat-tests": ("Load WEAT test definitions.", "biaswh ingest weat-tests builtin:caliskan2017", LOADS)
    },
)
def ingest_weat_tests(args) -> None:
    """Load WEAT test definitions (a YAML/JSON file or ``builtin:<name>``)."""
    from biaswh.ingest.weat.weat_tests import load_weat_tests

    load_by_hand(load_weat_tests, args.path, name=args.name)
