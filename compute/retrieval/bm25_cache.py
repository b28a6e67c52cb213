"""BM25 indexes kept on disk by corpus content and settings: a rerun loads its index instead of
tokenising the corpus again (2.0 s for SQuAD's 18,891 contexts here; the load takes 0.1 s).

The key is a sha256 over everything an index is a function of: every (doc_id, text) of the
corpus in order, the tokenizer's description, k1, b and epsilon, and the source of the code
that builds and reads it (``bm25.py``, ``tokenize.py``, this file), so changed code never
reads an old index. Files are plain arrays (``numpy.load`` without pickle), written to a
temporary name and renamed, and touched when read; the least recently used are removed
beyond :data:`MAX_BYTES`. The folder is the machine's (``BIASWH_BM25_CACHE``, else
``~/.cache/biaswh/bm25``), like the embedding cache: a fresh warehouse over the same corpus
loads it too. A cache that cannot be read or written only costs the build.

Indexes over one shard of a corpus (Ray, with the whole corpus's statistics) are not kept.
"""

from __future__ import annotations

import hashlib
import json
import os
import zipfile
from dataclasses import asdict
from pathlib import Path
from typing import Sequence

import numpy as np
from scipy import sparse

from biaswh.compute.retrieval.bm25 import BM25Index
from biaswh.compute.retrieval.bm25_statistics import BM25Parameters
from biaswh.compute.retrieval.tokenize import RegexTokenizer
from biaswh.warehouse.settings.home import user_cache_dir

CACHE_VARIABLE = "BIASWH_BM25_CACHE"
# The folder's size beyond which the least recently used indexes are removed.
MAX_BYTES = 2 * 1024**3
_CODE = ("bm25.py", "tokenize.py", "bm25_cache.py")


def bm25_cache_dir() -> Path:
    """The machine's BM25 index folder: ``BIASWH_BM25_CACHE``, else ``~/.cache/biaswh/bm25``."""
    return user_cache_dir(CACHE_VARIABLE, "bm25")


def index_key(
    doc_ids: Sequence[int], texts: Sequence[str], tokenizer: RegexTokenizer, parameters: BM25Parameters
) -> str:
    """The sha256 naming the index of this corpus with this tokenizer and these parameters."""
    digest = hashlib.sha256()
    for name in _CODE:
        digest.update((Path(__file__).parent / name).read_bytes())
    settings = {"tokenizer": tokenizer.describe(), "parameters": asdict(parameters)}
    digest.update(json.dumps(settings, sort_keys=True).encode())
    for doc_id, text in zip(doc_ids, texts, strict=True):
        digest.update(f"{doc_id}\0{len(text)}\0".encode())
        digest.update(text.encode("utf-8", "surrogatepass"))
    return digest.hexdigest()


def index_arrays(index: BM25Index) -> dict[str, np.ndarray]:
    """The index as plain arrays: what :func:`index_from_arrays` restores."""
    terms = [term.encode("utf-8", "surrogatepass") for term in index.vocabulary]  # in term-id order
    return {
        "doc_ids": index.doc_ids,
        "corpus_size": np.asarray(index.corpus_size, dtype=np.int64),
        "averages": np.asarray([index.average_length, index.average_idf], dtype=np.float64),
        "idf": index.idf,
        "weights_data": index.weights.data,
        "weights_indices": index.weights.indices,
        "weights_indptr": index.weights.indptr,
        "term_bytes": np.frombuffer(b"".join(terms), dtype=np.uint8),
        "term_ends": np.cumsum([len(term) for term in terms], dtype=np.int64),
    }


def index_from_arrays(arrays, *, tokenizer: RegexTokenizer, parameters: BM25Parameters) -> BM25Index:
    """The index :func:`index_arrays` gave, with the tokenizer and parameters it was built with."""
    index = BM25Index.__new__(BM25Index)
    index.tokenizer, index.parameters = tokenizer, parameters
    index.doc_ids = arrays["doc_ids"]
    blob, ends = arrays["term_bytes"].tobytes(), arrays["term_ends"].tolist()
    starts = [0, *ends[:-1]]
    index.vocabulary = {blob[a:b].decode("utf-8", "surrogatepass"): i for i, (a, b) in enumerate(zip(starts, ends))}
    index.corpus_size = tuple(int(n) for n in arrays["corpus_size"])
    index.average_length, index.average_idf = (float(x) for x in arrays["averages"])
    index.idf = arrays["idf"]
    index.weights = sparse.csr_matrix(
        (arrays["weights_data"], arrays["weights_indices"], arrays["weights_indptr"]),
        shape=(len(index.vocabulary), len(index.doc_ids)),
    )
    index.all_weights_positive = bool((index.weights.data > 0).all())
    index._densify_common_terms(np.diff(index.weights.indptr))
    return index


def _load(path: Path, tokenizer: RegexTokenizer, parameters: BM25Parameters) -> BM25Index | None:
    try:
        with np.load(path, allow_pickle=False) as stored:
            index = index_from_arrays(dict(stored), tokenizer=tokenizer, parameters=parameters)
    except (OSError, ValueError, KeyError, EOFError, zipfile.BadZipFile, UnicodeDecodeError):
        return None  # absent, partly written by a crashed process, or not ours: build it
    try:
        os.utime(path)  # recently used: the last to be pruned
    except OSError:
        pass  # a cache shared read-only: read, not touched
    return index


def _store(folder: Path, path: Path, index: BM25Index) -> None:
    try:
        folder.mkdir(parents=True, exist_ok=True)
        partial = folder / f".{path.stem}.{os.getpid()}.partial.npz"
        np.savez(partial, **index_arrays(index))
        partial.replace(path)
        _prune(folder)
    except OSError:
        pass  # a full disk or a read-only home: the run goes on with the index it built


def _prune(folder: Path) -> None:
    """Remove the least recently used indexes while the folder holds more than :data:`MAX_BYTES`."""
    files = sorted(folder.glob("*.npz"), key=lambda p: p.stat().st_mtime, reverse=True)
    total = 0
    for path in files:
        total += path.stat().st_size
        if total > MAX_BYTES:
            path.unlink(missing_ok=True)


def cached_bm25_index(
    texts: Sequence[str], *, doc_ids: Sequence[int], tokenizer: RegexTokenizer, parameters: BM25Parameters
) -> BM25Index:
    """The BM25 index of this corpus: loaded from the machine's cache, else built and stored there."""
    folder = bm25_cache_dir()
    path = folder / f"{index_key(doc_ids, texts, tokenizer, parameters)}.npz"
    index = _load(path, tokenizer, parameters)
    if index is None:
        index = BM25Index(texts, doc_ids=doc_ids, tokenizer=tokenizer, parameters=parameters)
        _store(folder, path, index)
    return index
