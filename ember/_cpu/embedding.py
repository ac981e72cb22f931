"""Kernel family `embedding`: the gradient of an embedding lookup, its rows of gradient
summed into the rows of the table they were looked up from (NumPy reference).

`add_rows` is also the row scatter-add behind ember's index_put with accumulate=True.
"""
from __future__ import annotations

import math

import numpy as np

from .tuning import ADD_ROWS_BATCH


def add_rows(out: np.ndarray, rows: np.ndarray, values: np.ndarray) -> None:
    """out[rows[i]] += values[i] for every i, in place, repeated rows summed in order
    (values has shape rows.shape + out.shape[1:]; negative rows count from the end,
    rows out of range raise NumPy's IndexError).

    np.add.at on the flattened arrays, with one index per element: NumPy's fast path for
    1-d add.at (on 2-d arrays it goes one element at a time, five times slower on an
    embedding's gradient). Rows go in batches so that the index arrays stay small."""
    width = math.prod(out.shape[1:])
    flat_rows = rows.reshape(-1)
    if not out.flags.c_contiguous or width == 0:
        np.add.at(out, rows, values)
        return
    flat_out, flat_values = out.reshape(-1), values.reshape(flat_rows.size, width)
    columns = np.arange(width)
    step = max(1, ADD_ROWS_BATCH // width)
    for start in range(0, flat_rows.size, step):
        batch = flat_rows[start:start + step]
        if batch.min() < -out.shape[0] or batch.max() >= out.shape[0]:
            np.add.at(out, batch, flat_values[start:start + step])   # NumPy's IndexError
        batch = batch % out.shape[0]
        np.add.at(flat_out, (batch[:, None] * width + columns).reshape(-1),
                  flat_values[start:start + step].reshape(-1))


def _gradient_rows(grad: np.ndarray, indices: np.ndarray):
    """(rows, values): the looked-up rows as a flat index array and grad as one row of
    values per index."""
    rows = indices.reshape(-1)
    return rows, grad.reshape(rows.size, grad.shape[-1])


def embedding_backward(grad: np.ndarray, indices: np.ndarray, num_weights: int,
                       padding_idx: int, scale_grad_by_freq: bool) -> np.ndarray:
    """The gradient of a (num_weights, D) table after out = table[indices]: a new
    (num_weights, D) array of grad's dtype whose row r is the sum of grad's rows
    (grad: indices.shape + (D,)) looked up from r, each divided by how often r occurs in
    indices when scale_grad_by_freq. The row padding_idx stays zero (-1: no padding row).
    indices are integers in [0, num_weights)."""
    rows, values = _gradient_rows(grad, indices)
    if scale_grad_by_freq:
        counts = np.bincount(rows, minlength=num_weights).astype(grad.dtype)
        values = values / counts[rows][:, None]
    if padding_idx >= 0:
        keep = rows != padding_idx
        rows, values = rows[keep], values[keep]
    out = np.zeros((num_weights, grad.shape[-1]), grad.dtype)
    add_rows(out, rows, values)
    return out
