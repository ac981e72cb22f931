"""The kernel of sparse @ dense: out[r] = sum of values[k] * dense[cols[k]] over the
entries k of row r.

scipy's COO product (the `ember[sparse]` extra) runs it in compiled code, ~19x faster
than NumPy on a 5000-node graph with 50000 edges and 64 features (7 ms against 136 ms,
one thread); without scipy the NumPy reference runs. scipy is looked up on the first
product, never by `import ember`.
"""
from __future__ import annotations

import importlib
import importlib.util

import numpy as np

_SCIPY_DTYPES = (np.dtype(np.float32), np.dtype(np.float64), np.dtype(np.complex64),
                 np.dtype(np.complex128))
_scipy_sparse = None            # the scipy.sparse module once looked up; False: absent


def _scipy():
    global _scipy_sparse
    if _scipy_sparse is None:
        _scipy_sparse = importlib.util.find_spec("scipy") is not None and \
            importlib.import_module("scipy.sparse")
    return _scipy_sparse


def coo_matmul(rows: np.ndarray, cols: np.ndarray, values: np.ndarray, dense: np.ndarray,
               n_rows: int) -> np.ndarray:
    """The (n_rows, p) product of the COO matrix (rows, cols, values) and dense (m, p)."""
    scipy_sparse = _scipy()
    if scipy_sparse and values.dtype == dense.dtype and values.dtype in _SCIPY_DTYPES:
        matrix = scipy_sparse.coo_matrix((values, (rows, cols)), shape=(n_rows, dense.shape[0]))
        return np.asarray(matrix @ dense)
    return coo_matmul_numpy(rows, cols, values, dense, n_rows)


def coo_matmul_numpy(rows: np.ndarray, cols: np.ndarray, values: np.ndarray,
                     dense: np.ndarray, n_rows: int) -> np.ndarray:
    """The NumPy reference: the products grouped by row (sorted when they are not), then
    summed per row along contiguous memory."""
    out = np.zeros((n_rows, dense.shape[1]), dtype=np.result_type(values, dense))
    if rows.size == 0:
        return out
    order = None if np.all(rows[1:] >= rows[:-1]) else np.argsort(rows, kind="stable")
    if order is not None:
        rows, cols, values = rows[order], cols[order], values[order]
    starts = np.flatnonzero(np.r_[True, rows[1:] != rows[:-1]])
    products = (dense[cols] * values[:, None]).T.copy()        # (p, nnz), rows contiguous
    out[rows[starts]] = np.add.reduceat(products, starts, axis=1).T
    return out
