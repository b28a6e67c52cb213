"""TREC run files (``qid Q0 docid rank score tag``), so results interoperate with trec_eval and ranx.

Export writes one line per hit, whitespace separated, ranks from 1, scores with 17
significant digits (a float64 round-trips exactly). Import reads the same layout back,
refusing a malformed line with the file, line and field named.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable

from biaswh.ingest.common.readers import int32_value, read_utf8
from biaswh.warehouse.database.output_files import atomic_output
from biaswh.warehouse.errors import InputError


@dataclass(frozen=True)
class TrecRow:
    """One line of a TREC run file."""

    query_id: str
    doc_id: str
    rank: int
    score: float
    tag: str
    # where it is in the file read (from 1), 0 for a row not read from one; not part of its content
    line: int = field(default=0, compare=False)


def write_run(path: str | Path, rows: Iterable[TrecRow]) -> int:
    """Write rows as a TREC run file (whole or not at all); return how many lines were written."""
    n = 0
    with atomic_output(Path(path), newline="\n") as handle:
        for row in rows:
            for name, value in (("qid", row.query_id), ("docid", row.doc_id), ("tag", row.tag)):
                if not value or any(c.isspace() for c in str(value)):
                    raise ValueError(f"TREC {name} must be non-empty without whitespace, got {value!r}")
            handle.write(f"{row.query_id} Q0 {row.doc_id} {row.rank} {row.score:.17g} {row.tag}\n")
            n += 1
    return n


def read_run(path: str | Path) -> list[TrecRow]:
    """Read a TREC run file (blank lines skipped)."""
    rows = []
    path = Path(path)
    if not path.is_file():
        raise InputError(path, "no such file")
    for line_number, line in enumerate(read_utf8(path).splitlines(), start=1):
        fields = line.split()
        if not fields:
            continue
        if len(fields) != 6:
            raise InputError(
                path, f"expected 6 fields (qid Q0 docid rank score tag), found {len(fields)}", row=line_number
            )
        query_id, _, doc_id, rank, score, tag = fields
        rank_value = int32_value(path, rank, row=line_number, field="rank")
        try:
            score_value = float(score)
        except ValueError:
            raise InputError(path, f"score {score!r} is not a number", row=line_number, field="score") from None
        if not math.isfinite(score_value):
            raise InputError(path, f"score {score!r} is not a finite number", row=line_number, field="score")
        rows.append(TrecRow(query_id, doc_id, rank_value, score_value, tag, line_number))
    return rows
