"""The forward passes of a local embedding model, fixed so both compute engines run the same ones."""

from __future__ import annotations

import numpy as np


def forward_batches(texts: list[str], batch_size: int) -> list[list[int]]:
    """The positions of ``texts`` in each forward pass: longest first (ties in input order), ``batch_size`` at a time.

    The batches are fixed here, not inside sentence-transformers, because a row's last float bits
    depend on the batch it was padded with: the local and the Ray engine run these same batches,
    so their vectors are identical.
    """
    order = sorted(range(len(texts)), key=lambda position: -len(texts[position]))
    return [order[first : first + batch_size] for first in range(0, len(order), batch_size)]


def place_rows(n_texts: int, batches: list[list[int]], rows: list[np.ndarray]) -> np.ndarray:
    """The batches' rows put back in input order (an empty input gives a 0 x 0 matrix)."""
    if not rows:
        return np.zeros((n_texts, 0), dtype=np.float32)
    matrix = np.empty((n_texts, rows[0].shape[1]), dtype=np.float32)
    for positions, batch_rows in zip(batches, rows):
        matrix[positions] = batch_rows
    return matrix
