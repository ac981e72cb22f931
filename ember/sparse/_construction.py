"""Making sparse COO tensors: torch.sparse_coo_tensor and Tensor.to_sparse."""
from __future__ import annotations

import numpy as np

from .. import _layout
from .._device import check_device
from .._tensor import Tensor
from ..ops.creation import as_tensor
from ._coo import SparseCooTensor
from ._functions import FromValues, ToSparse


def _check_invariants(indices: np.ndarray, size: tuple) -> None:
    for dim, (n, column) in enumerate(zip(size, indices)):
        if column.size and (column.min() < 0 or column.max() >= n):
            found = column.min() if column.min() < 0 else column.max()
            raise RuntimeError(f"size is inconsistent with indices: for dim {dim}, size is {n} "
                               f"but found index {found}")


def sparse_coo_tensor(indices, values, size=None, *, dtype=None, device=None,
                      pin_memory: bool = False, requires_grad: bool = False,
                      check_invariants=None, is_coalesced=None) -> SparseCooTensor:
    """A sparse COO tensor with values[k] at indices[:, k] (indices: sparse_dim x nnz).

    values may have trailing dense dims (a hybrid tensor). size defaults to one past the
    largest index along each sparse dim, followed by the values' dense sizes. Indices are
    always checked against the size. is_coalesced=True vouches that the indices are sorted
    and unique. Gradients reach `values` when it requires grad; requires_grad=True makes
    the result a leaf whose .grad autograd fills.
    """
    check_device(device)
    if pin_memory:
        raise NotImplementedError("sparse_coo_tensor: pin_memory=True is not supported by "
                                  "ember")
    indices = np.asarray(indices.numpy(force=True) if isinstance(indices, Tensor) else indices)
    if indices.ndim != 2:
        raise RuntimeError(f"indices must be sparse_dim x nnz, but got: {list(indices.shape)}")
    if indices.size and indices.dtype.kind not in "iu":
        raise RuntimeError("indices must be an int64 tensor")
    indices = indices.astype(np.int64, copy=False)
    values = values if isinstance(values, Tensor) else as_tensor(values)
    if dtype is not None and values.dtype is not dtype:
        values = values.to(dtype)
    if values.ndim == 0:
        raise RuntimeError("values must have at least one dimension (nnz)")
    if indices.shape[1] != values.shape[0]:
        raise RuntimeError(f"indices and values must have same nnz, but got nnz from indices: "
                           f"{indices.shape[1]}, nnz from values: {values.shape[0]}")
    sparse_dim, dense_shape = indices.shape[0], tuple(values.shape[1:])
    if size is None:
        sparse_size = tuple(int(m) + 1 for m in indices.max(axis=1)) if indices.shape[1] \
            else (0,) * sparse_dim
        size = sparse_size + dense_shape
    size = tuple(int(n) for n in size)
    if len(size) != sparse_dim + len(dense_shape):
        raise RuntimeError(f"'len(size) == sparse_dim + dense_dim' is not satisfied: len(size) "
                           f"= {len(size)}, sparse_dim = {sparse_dim}, dense_dim = "
                           f"{len(dense_shape)}")
    if size[sparse_dim:] != dense_shape:
        expected = [indices.shape[1], *size[sparse_dim:]]
        raise RuntimeError(f"values has incorrect size, expected {expected}, got "
                           f"{list(values.shape)}")
    _check_invariants(indices, size)
    if requires_grad:
        result = SparseCooTensor._make(indices, values.detach(), size, bool(is_coalesced))
        return result.requires_grad_()
    return FromValues.apply(values, indices, size, bool(is_coalesced))


def to_sparse(self: Tensor, sparse_dim=None, *, layout=None, blocksize=None,
              dense_dim=None) -> SparseCooTensor:
    """The sparse COO tensor of this dense tensor's non-zero entries. With sparse_dim,
    only the first sparse_dim dims are sparse: each entry is a slice of the rest that
    is not all zeros (a hybrid tensor)."""
    if layout not in (None, _layout.sparse_coo) or blocksize is not None:
        raise NotImplementedError(f"to_sparse: layout={layout} is not supported by ember (only "
                                  "torch.sparse_coo)")
    if dense_dim is not None:
        raise NotImplementedError("to_sparse: dense_dim is not supported by ember (give "
                                  "sparse_dim)")
    if self.is_sparse:
        if sparse_dim not in (None, self.sparse_dim()):
            raise NotImplementedError("to_sparse: changing the sparse_dim of a sparse tensor "
                                      "is not supported by ember")
        return self
    sparse_dim = self.ndim if sparse_dim is None else int(sparse_dim)
    if not 0 <= sparse_dim <= self.ndim:
        raise RuntimeError(f"sparse_dim must be in [0, {self.ndim}], but got {sparse_dim}")
    return ToSparse.apply(self, sparse_dim)


def to_sparse_coo(self: Tensor) -> SparseCooTensor:
    """This tensor in the sparse COO layout (indices and values of its non-zeros)."""
    return to_sparse(self)


def to_dense(self: Tensor, dtype=None, *, masked_grad=None) -> Tensor:
    """A strided tensor is already dense: itself (cast to dtype if given)."""
    return self if dtype is None else self.to(dtype)
