"""The differentiable steps between a sparse COO tensor's values and dense tensors.

A sparse tensor's gradient flows through its `values` tensor: these Functions take the
values (nnz entries) as an ordinary input, the indices and the dense shape as plain
arguments. Each backward is written in ember ops, so it is itself differentiable.
"""
from __future__ import annotations

import numpy as np

from .._tensor import Tensor
from ..autograd.function import Function


def _row_sums(rows: np.ndarray, products: np.ndarray, n_rows: int) -> np.ndarray:
    """out[r] = sum of products[k] over the k with rows[k] == r (products: (nnz, ...))."""
    out = np.zeros((n_rows,) + products.shape[1:], dtype=products.dtype)
    if rows.size == 0:
        return out
    order = np.argsort(rows, kind="stable")
    sorted_rows = rows[order]
    starts = np.flatnonzero(np.r_[True, sorted_rows[1:] != sorted_rows[:-1]])
    out[sorted_rows[starts]] = np.add.reduceat(products[order], starts, axis=0)
    return out


class SparseDenseMM(Function):
    """(sparse matrix with `indices`, `values`, `shape`) @ dense matrix."""
    backward_name = "SparseAddmmBackward0"

    @staticmethod
    def forward(ctx, values, dense, indices, shape):
        rows, cols = indices
        ctx.save_for_backward(values, dense)
        ctx.indices, ctx.shape = indices, shape
        products = values[:, None] * dense[cols]
        return _row_sums(rows, products, shape[0]).astype(dense.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        values, dense = ctx.saved_tensors
        rows, cols = ctx.indices
        grad_values = grad_dense = None
        if ctx.needs_input_grad[0]:
            grad_values = (grad[Tensor._wrap(rows)] * dense[Tensor._wrap(cols)]).sum(1)
        if ctx.needs_input_grad[1]:
            transposed = np.stack([cols, rows])
            grad_dense = SparseDenseMM.apply(values, grad, transposed,
                                             (ctx.shape[1], ctx.shape[0]))
        return grad_values, grad_dense, None, None


class ToDense(Function):
    """The dense tensor of `shape` holding `values` at `indices` (duplicates summed)."""
    backward_name = "ToDenseBackward0"

    @staticmethod
    def forward(ctx, values, indices, shape):
        ctx.indices = indices
        out = np.zeros(shape, dtype=values.dtype)
        np.add.at(out, tuple(indices), values)
        return out

    @staticmethod
    def backward(ctx, grad):
        return grad[tuple(Tensor._wrap(index) for index in ctx.indices)], None, None
