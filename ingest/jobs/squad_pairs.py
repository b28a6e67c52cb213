"""Study ingest sources for retrieval studies: ``[[ingest]] source = "squad"`` and ``source = "pairs"``.

They register like every other source; each step's keys other than ``source`` and ``path``
are the loader's options (``split``, ``name`` for SQuAD; ``name``, ``variants``,
``squad_split``, ``cleanup``, ... for pairs).
"""

from __future__ import annotations

from ingest.pairs import load_pairs
from ingest.squad import load_squad
from ingest.versions import IngestResult
from warehouse.study import register_ingester


def _options(step: dict) -> dict:
    return {k: v for k, v in step.items() if k not in ("source", "path")}


@register_ingester("squad")
def ingest_squad(con, study, step: dict) -> IngestResult:
    """``path`` (SQuAD JSON, JSONL, Parquet, or ``hf:squad``), ``split``, optional ``name``."""
    return load_squad(con, study.resolve(step["path"]), **_options(step))


@register_ingester("pairs")
def ingest_pairs(con, study, step: dict) -> IngestResult:
    """``path`` (JSON, JSONL or CSV pairs) and the options of :func:`ingest.pairs.load_pairs`."""
    return load_pairs(con, study.resolve(step["path"]), **_options(step))
