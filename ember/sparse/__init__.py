"""torch.sparse: sparse COO tensors (see _coo.py for what ember supports) and the
functions of the torch.sparse namespace that work on them.

    adjacency = torch.sparse_coo_tensor(edges, weights, (n, n))
    h = torch.sparse.mm(adjacency, x)        # dense result, gradients to x and weights
"""
from __future__ import annotations

from .._tensor import Tensor
from ._coo import SparseCooTensor, sparse_coo_tensor, to_dense, to_sparse, to_sparse_coo

__all__ = ["mm", "sum", "SparseCooTensor", "sparse_coo_tensor"]

Tensor.to_sparse = to_sparse
Tensor.to_sparse_coo = to_sparse_coo
Tensor.to_dense = to_dense


def mm(mat1: Tensor, mat2: Tensor, reduce: str = "sum") -> Tensor:
    """mat1 @ mat2 with a sparse mat1 (or mat2) and a dense result."""
    if reduce != "sum":
        raise NotImplementedError(f"torch.sparse.mm: reduce={reduce!r} is not supported by "
                                  "ember")
    return mat1 @ mat2


def sum(input: Tensor, dim=None, dtype=None) -> Tensor:
    """The sum of a sparse tensor's entries (a 0-dim dense tensor)."""
    return input.sum(dim=dim, dtype=dtype)
