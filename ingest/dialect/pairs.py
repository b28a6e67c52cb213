"""Ingest paired queries (e.g. SAE / AAE) from JSON, JSONL or CSV, stored long.

Each source row becomes one ``raw.query_pair_variants`` row per variant column, so a
study can compare any number of variants. The raw text is kept beside the cleaned one.
"""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pyarrow as pa

from biaswh.ingest.common.readers import is_blank, read_records
from biaswh.ingest.common.versions import IngestResult, SourceFile, unchanged_result, write_version
from biaswh.ingest.dialect.pair_golds import GoldSource, gold_source
from biaswh.ingest.dialect.text_cleanup import cleanup_named
from biaswh.warehouse.errors import InputError, UserError
from biaswh.warehouse.runs.registry import file_sha256

DEFAULT_VARIANTS = {"sae": "sae_query", "aae": "aave_query"}


def _long_rows(path, records, *, variants, id_column, gold: GoldSource, cleanup, allow_missing_variants):
    seen: dict[str, int] = {}
    rows = []
    known_columns = {id_column, gold.column, *variants.values()}

    def extra_columns(record: dict) -> dict:
        return {k: v for k, v in record.items() if k not in known_columns}

    for number, record in enumerate(records, start=1):
        pair_id = record.get(id_column)
        if pair_id is None or str(pair_id).strip() == "":
            raise InputError(path, "missing pair id", row=number, field=id_column)
        pair_id = str(pair_id)
        if pair_id in seen:
            raise InputError(
                path, f"duplicate pair id {pair_id!r} (first seen in row {seen[pair_id]})", row=number, field=id_column
            )
        seen[pair_id] = number
        gold_columns = gold.resolve(path, number, record)
        attributes = json.dumps(extra_columns(record), sort_keys=True, default=str)
        for variant, column in variants.items():
            text = record.get(column)
            if text is None and allow_missing_variants:
                continue  # this pair has no such variant (e.g. a rule that did not apply)
            if not isinstance(text, str) or is_blank(text):  # zero-width characters alone are empty
                raise InputError(path, f"empty query text for variant '{variant}'", row=number, field=column)
            rows.append(
                {
                    "pair_id": pair_id,
                    "source_row": number,
                    **gold_columns,
                    "variant": variant,
                    "source_column": column,
                    "query_text_raw": text,
                    "query_text": cleanup(text),
                    "attributes": attributes,
                }
            )
    return rows


def load_pairs(
    con: duckdb.DuckDBPyConnection,
    path: str | Path,
    *,
    name: str | None = None,
    variants: dict[str, str] | None = None,
    id_column: str = "id",
    squad_idx_column: str = "squad_idx",
    squad_split: str = "train",
    gold_doc_id_column: str = "gold_doc_id",
    corpus: str | None = None,
    gold_query_id_column: str = "gold_query_id",
    query_set: str | None = None,
    cleanup: bool | str = True,
    allow_missing_variants: bool = False,
) -> IngestResult:
    """Load a paired-query file into ``raw.query_pair_variants`` as a new version.

    Parameters
    ----------
    con : an open, writable warehouse connection.
    path : JSON (array of objects), JSONL or CSV file.
    name : the pair set's name (default: the file name without suffix).
    variants : variant label -> source column; default ``{"sae": "sae_query", "aae": "aave_query"}``.
    squad_idx_column, squad_split : the gold as a SQuAD row index (the default).
    gold_doc_id_column, corpus : the gold as the source id of a document of an ingested corpus.
    gold_query_id_column, query_set : the gold as a query of ``queries:<name>`` with qrels: every
        document its qrels judge relevant (see :mod:`biaswh.ingest.dialect.pair_golds`).
    cleanup : the query clean-up (the raw text is kept too): ``True``/``"light"`` the corrected light
        clean-up, ``"seed_compatible"`` the original notebook's ("ain't" -> "aingt"), ``False``/``"none"``.
    allow_missing_variants : a variant column that is missing or null in a row means that pair has
        no such variant (rule-based variants exist only where the rule applied); an empty text is
        still refused. The reference variant should be present in every row.
    """
    path = Path(path).expanduser().resolve()
    variants = dict(variants or DEFAULT_VARIANTS)
    if not variants:
        raise UserError("at least one variant column is needed")
    pair_set = name or path.stem
    cleanup_label, cleanup_function = cleanup_named(cleanup)
    gold = gold_source(
        con,
        path,
        squad_idx_column=squad_idx_column,
        squad_split=squad_split,
        gold_doc_id_column=gold_doc_id_column,
        corpus=corpus,
        gold_query_id_column=gold_query_id_column,
        query_set=query_set,
    )
    parameters = {
        "variants": variants,
        "id_column": id_column,
        **gold.parameters(),
        "cleanup": cleanup_label,
        **({"allow_missing_variants": True} if allow_missing_variants else {}),
    }
    if path.is_file():
        unchanged = unchanged_result(con, SourceFile("query_pairs", pair_set, path, file_sha256(path), parameters))
        if unchanged is not None:
            return unchanged
    records = read_records(path, allowed=("json", "jsonl", "csv"))
    if not records:
        raise InputError(path, "contains no query pairs")
    missing = [c for c in variants.values() if all(c not in r for r in records)]
    if missing:
        raise InputError(path, f"variant column not found in any row (columns: {sorted(records[0])})", field=missing[0])
    rows = _long_rows(
        path,
        records,
        variants=variants,
        id_column=id_column,
        gold=gold,
        cleanup=cleanup_function,
        allow_missing_variants=allow_missing_variants,
    )
    constants = {
        "pair_set": pair_set,
        "cleanup": cleanup_label,
        "gold_kind": gold.kind,
        "corpus": gold.corpus,
        "gold_query_set": gold.query_set,
    }
    source = SourceFile("query_pairs", pair_set, path, file_sha256(path), parameters)
    table = pa.Table.from_pylist(rows)
    return write_version(con, source, table, raw_table="query_pair_variants", constants=constants)
