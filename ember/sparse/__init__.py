"""torch.sparse: sparse COO tensors (see _coo.py) and the functions of the torch.sparse
namespace that work on them.

    adjacency = torch.sparse_coo_tensor(edges, weights, (n, n))
    h = torch.sparse.mm(adjacency, x)        # dense result, gradients to x and weights
"""
from __future__ import annotations

from .._tensor import Tensor
from . import _methods  # noqa: F401  (binds SparseCooTensor's methods)
from . import _functions as F
from ._construction import sparse_coo_tensor, to_dense, to_sparse, to_sparse_coo
from ._coo import SparseCooTensor, not_supported

__all__ = ["addmm", "log_softmax", "mm", "softmax", "sum", "SparseCooTensor",
           "sparse_coo_tensor"]

Tensor.to_sparse = to_sparse
Tensor.to_sparse_coo = to_sparse_coo
Tensor.to_dense = to_dense
SparseCooTensor._matmul = _methods.matmul       # what ember.matmul calls for sparse operands
SparseCooTensor._rmatmul = _methods.rmatmul


def _check_sparse(input: Tensor, name: str) -> None:
    if not input.is_sparse:
        raise not_supported(f"torch.sparse.{name} of a dense tensor")


def mm(mat1: Tensor, mat2: Tensor, reduce: str = "sum") -> Tensor:
    """mat1 @ mat2 for a sparse matrix mat1 and a dense mat2: a dense result. mat1's
    gradient is sparse, on mat1's pattern."""
    if reduce != "sum":
        raise NotImplementedError(f"torch.sparse.mm: reduce={reduce!r} is not supported by "
                                  "ember")
    _check_sparse(mat1, "mm")
    _methods._check_mm(mat1, mat2)
    return F.SparseAddmm.apply(None, mat1, mat2, 1, 1)


def addmm(mat: Tensor, mat1: Tensor, mat2: Tensor, *, beta=1.0, alpha=1.0) -> Tensor:
    """beta * mat + alpha * (mat1 @ mat2) for a sparse mat1 and dense mat and mat2."""
    _check_sparse(mat1, "addmm")
    _methods._check_mm(mat1, mat2)
    return F.SparseAddmm.apply(mat, mat1, mat2, beta, alpha)


def sum(input: Tensor, dim=None, dtype=None) -> Tensor:
    """The sum of a sparse tensor's entries: over every dim (a 0-dim dense tensor), or over
    `dim` (an int or a tuple): sparse while a sparse dim remains. The gradient keeps
    input's pattern."""
    _check_sparse(input, "sum")
    if dtype is not None:
        input = input.to(dtype)
    if dim is None:
        return F.SparseSumAll.apply(input, tuple(range(input.ndim)))
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    return F.SparseSum.apply(input, tuple(sorted({input._wrap_dim(d) for d in dims})))


def softmax(input: Tensor, dim: int, *, dtype=None) -> Tensor:
    """Softmax along a sparse dim over the stored entries only (absent ones count as
    -inf, so they stay absent); the result has input's coalesced pattern."""
    _check_sparse(input, "softmax")
    if dtype is not None:
        input = input.to(dtype)
    return F.Softmax.apply(input, input._wrap_dim(dim))


def log_softmax(input: Tensor, dim: int, *, dtype=None) -> Tensor:
    """log(softmax(input, dim)) computed stably, on the same pattern."""
    _check_sparse(input, "log_softmax")
    if dtype is not None:
        input = input.to(dtype)
    return F.LogSoftmax.apply(input, input._wrap_dim(dim))
