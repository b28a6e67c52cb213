"""Lance tables written by LanceDB, read back through DuckDB's lance extension."""

from __future__ import annotations

import lancedb
import numpy as np
import pyarrow as pa

from biaswh.warehouse.database import lance_tables


def test_rows_written_by_lancedb_read_back_exactly_and_filtered(tmp_path):
    folder = tmp_path / "it's a folder"  # a quote in the path is quoted in the query
    vectors = np.random.default_rng(1).normal(size=(50, 8)).astype(np.float32)
    rows = pa.table(
        {
            "word": [f"w{i}" for i in range(50)],
            "vector": pa.FixedSizeListArray.from_arrays(pa.array(vectors.ravel()), 8),
            "row": pa.array(range(1, 51), pa.int32()),
        }
    )
    lancedb.connect(str(folder)).create_table("words", rows)

    assert lance_tables.table_exists(folder, "words")
    everything = lance_tables.read(folder, "words", 'word, vector, "row"').sort_by("row")
    assert everything.column("word").to_pylist() == rows.column("word").to_pylist()
    read = everything.column("vector").combine_chunks()
    assert read.type.list_size == 8
    assert np.array_equal(read.values.to_numpy().reshape(-1, 8), vectors)

    some = lance_tables.read(folder, "words", "word", "word in (select unnest($1::varchar[]))", [["w3", "w7", "x"]])
    assert sorted(some.column("word").to_pylist()) == ["w3", "w7"]

    lancedb.connect(str(folder)).open_table("words").add(rows.slice(0, 2))
    assert lance_tables.read(folder, "words", "count(*) as n").column("n").to_pylist() == [52]  # the latest version


def test_a_missing_table_or_one_without_a_version_does_not_exist(tmp_path):
    assert not lance_tables.table_exists(tmp_path, "words")
    (tmp_path / "words.lance" / "_versions").mkdir(parents=True)  # a table another process is creating
    assert not lance_tables.table_exists(tmp_path, "words")
