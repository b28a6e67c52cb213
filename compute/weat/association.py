"""Cosine similarities and the per-word association s(w, A, B) of Caliskan et al. (2017)."""

from __future__ import annotations

import numpy as np


def unit_rows(vectors: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length (float64); a zero vector has no direction, so it is refused."""
    matrix = np.asarray(vectors, dtype=np.float64)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    if (norms == 0).any():
        raise ValueError(f"{int((norms == 0).sum())} zero vector(s): cosine similarity is undefined")
    return matrix / norms


def cosine_matrix(left: np.ndarray, right: np.ndarray) -> np.ndarray:
    """Cosine similarity of every row of ``left`` with every row of ``right`` (shape [n_left, n_right])."""
    return unit_rows(left) @ unit_rows(right).T


def word_associations(targets: np.ndarray, attribute_a: np.ndarray, attribute_b: np.ndarray) -> np.ndarray:
    """s(w, A, B) = mean cos(w, a) over A minus mean cos(w, b) over B, for each target row w."""
    return cosine_matrix(targets, attribute_a).mean(axis=1) - cosine_matrix(targets, attribute_b).mean(axis=1)
