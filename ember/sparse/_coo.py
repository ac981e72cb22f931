"""Sparse COO tensors: `indices` (sparse_dim x nnz int64) and `values` (nnz entries).

ember's sparse tensors cover what graph networks and other sparse programs do with
them: build (torch.sparse_coo_tensor, Tensor.to_sparse), inspect (indices, values,
coalesce, to_dense), multiply a sparse matrix by a dense one (sparse @ dense,
dense @ sparse, torch.mm / torch.spmm / torch.sparse.mm) with gradients for the dense
operand and for the values, add them to dense tensors and to each other, scale them.
Values are scalars (no hybrid dense dimensions). Any other op refuses a sparse tensor
with a NotImplementedError, as torch does for the ops its sparse backend lacks.

Gradients flow through `values`: a sparse tensor built from values that require grad
reports requires_grad=True, but has no grad_fn of its own and is never a leaf that
receives a .grad (torch gives it one, sparse).
"""
from __future__ import annotations

import math

import numpy as np

from .. import _layout
from .._device import check_device
from .._printing import sparse_coo_repr
from .._tensor import Tensor, _init_fields, parse_to_args
from ..ops.creation import as_tensor
from ..ops.joining import cat
from ._functions import SparseDenseMM, ToDense

_NOT_SUPPORTED = ("{op}: ember's sparse COO tensors support coalesce, to_dense, matrix "
                  "products with dense tensors, addition and scaling only; call .to_dense() "
                  "first for other operations")


class _NoDenseData:
    """A sparse tensor's `_data`: the shape and dtype of the dense tensor it stands for (so
    size(), dtype and friends read true), no memory, and every other use refused: NumPy
    functions, ufuncs, conversion to an array, indexing and array attributes raise."""

    def __init__(self, shape: tuple, dtype: np.dtype):
        self.shape, self.dtype = shape, dtype
        self.ndim, self.size, self.itemsize = len(shape), math.prod(shape), dtype.itemsize

    def __getattr__(self, name: str):
        raise NotImplementedError(_NOT_SUPPORTED.format(op=name))

    def __array__(self, dtype=None, copy=None):
        raise NotImplementedError(_NOT_SUPPORTED.format(op="conversion to an array"))

    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        raise NotImplementedError(_NOT_SUPPORTED.format(op=ufunc.__name__))

    def __array_function__(self, func, types, args, kwargs):
        raise NotImplementedError(_NOT_SUPPORTED.format(op=func.__name__))

    def __getitem__(self, key):
        raise NotImplementedError(_NOT_SUPPORTED.format(op="indexing"))


class SparseCooTensor(Tensor):
    """A sparse tensor in coordinate format (layout torch.sparse_coo); see the module."""

    __slots__ = ("_sparse_indices", "_sparse_values", "_coalesced")
    layout = _layout.sparse_coo
    is_sparse = True

    # -- construction and identity -------------------------------------------------------
    @staticmethod
    def _make(indices: np.ndarray, values: Tensor, shape: tuple,
              coalesced: bool) -> "SparseCooTensor":
        t = object.__new__(SparseCooTensor)
        _init_fields(t, _NoDenseData(shape, values.dtype.numpy), [0])
        t._sparse_indices = indices
        t._sparse_values = values
        t._coalesced = coalesced
        return t

    @property
    def requires_grad(self) -> bool:
        return self._sparse_values.requires_grad

    @requires_grad.setter
    def requires_grad(self, value: bool) -> None:
        raise NotImplementedError("requires_grad of a sparse tensor: ember differentiates "
                                  "sparse tensors through their values; build it from values "
                                  "that require grad instead")

    def requires_grad_(self, requires_grad: bool = True) -> "SparseCooTensor":
        self.requires_grad = requires_grad
        return self

    def sparse_dim(self) -> int:
        return self._sparse_indices.shape[0]

    def dense_dim(self) -> int:
        return 0

    def _nnz(self) -> int:
        return self._sparse_indices.shape[1]

    def is_coalesced(self) -> bool:
        return self._coalesced

    def _indices(self) -> Tensor:
        return Tensor._wrap(self._sparse_indices)

    def _values(self) -> Tensor:
        return self._sparse_values

    def indices(self) -> Tensor:
        """The indices of a coalesced tensor (sparse_dim x nnz, int64)."""
        self._check_coalesced("indices")
        return self._indices()

    def values(self) -> Tensor:
        """The values of a coalesced tensor (nnz entries)."""
        self._check_coalesced("values")
        return self._values()

    def _check_coalesced(self, what: str) -> None:
        if not self._coalesced:
            raise RuntimeError(f"Cannot get {what} on an uncoalesced tensor, please call "
                               ".coalesce() first")

    def stride(self, dim=None):
        """Zeros: a sparse tensor has no strided memory (torch answers the same)."""
        strides = (0,) * self.ndim
        return strides if dim is None else strides[self._wrap_dim(dim)]

    def __repr__(self, *, tensor_contents=None) -> str:
        return sparse_coo_repr(self._sparse_indices, self._sparse_values.numpy(force=True),
                               tuple(self.shape), self.dtype, self.requires_grad)

    # -- conversions -------------------------------------------------------------------------
    def coalesce(self) -> "SparseCooTensor":
        """The same tensor with sorted, unique indices (values of repeated indices summed)."""
        if self._coalesced:
            return self
        flat = np.ravel_multi_index(tuple(self._sparse_indices), self.shape) \
            if self._nnz() else np.zeros(0, np.int64)
        unique, inverse = np.unique(flat, return_inverse=True)
        values = self._sparse_values
        summed = values.new_zeros((unique.size,)).index_add(0, Tensor._wrap(inverse), values)
        indices = np.stack(np.unravel_index(unique, self.shape)).astype(np.int64) \
            if unique.size else np.zeros((self.sparse_dim(), 0), np.int64)
        return SparseCooTensor._make(indices, summed, tuple(self.shape), True)

    def to_dense(self, dtype=None, *, masked_grad=None) -> Tensor:
        """The dense (strided) tensor; gradients flow back to the values."""
        dense = ToDense.apply(self._sparse_values, self._sparse_indices, tuple(self.shape))
        return dense if dtype is None else dense.to(dtype)

    def to(self, *args, **kwargs) -> "SparseCooTensor":
        copy = kwargs.pop("copy", False)
        dtype, dev, _ = parse_to_args(args, kwargs)
        check_device(dev)
        if (dtype is None or dtype is self.dtype) and not copy:
            return self
        values = self._sparse_values.to(dtype or self.dtype, copy=copy)
        return SparseCooTensor._make(self._sparse_indices, values, tuple(self.shape),
                                     self._coalesced)

    def detach(self) -> "SparseCooTensor":
        return SparseCooTensor._make(self._sparse_indices, self._sparse_values.detach(),
                                     tuple(self.shape), self._coalesced)

    def clone(self, *, memory_format=None) -> "SparseCooTensor":
        return SparseCooTensor._make(self._sparse_indices.copy(), self._sparse_values.clone(),
                                     tuple(self.shape), self._coalesced)

    def t(self) -> "SparseCooTensor":
        if self.ndim > 2:
            raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is "
                               f"{self.ndim}D")
        return self.transpose(0, self.ndim - 1) if self.ndim == 2 else self

    def transpose(self, dim0: int, dim1: int) -> "SparseCooTensor":
        dim0, dim1 = self._wrap_dim(dim0), self._wrap_dim(dim1)
        order = list(range(self.ndim))
        order[dim0], order[dim1] = dim1, dim0
        return SparseCooTensor._make(self._sparse_indices[order], self._sparse_values,
                                     tuple(self.shape[d] for d in order),
                                     self._coalesced and dim0 == dim1)

    def numpy(self, *, force: bool = False):
        raise TypeError("can't convert Sparse layout tensor to numpy. Use Tensor.to_dense() "
                        "first.")

    def tolist(self):
        raise NotImplementedError(_NOT_SUPPORTED.format(op="tolist"))

    def __reduce_ex__(self, protocol):
        raise NotImplementedError("saving sparse tensors is not supported by ember: save "
                                  "t.coalesce().indices() and .values() instead")

    # -- arithmetic ----------------------------------------------------------------------------
    def __matmul__(self, other):
        return self._matmul(other)

    def __rmatmul__(self, other):
        return self._rmatmul(other)

    def mm(self, mat2) -> Tensor:
        if mat2.ndim != 2:
            raise RuntimeError("mat2 must be a matrix")
        return self._matmul(mat2)

    matmul = __matmul__

    def _matmul(self, dense: Tensor) -> Tensor:
        """self (a sparse matrix) @ dense (a matrix or a vector): a dense result."""
        if dense.is_sparse:
            raise NotImplementedError(_NOT_SUPPORTED.format(op="sparse @ sparse"))
        if self.ndim != 2 or dense.ndim not in (1, 2):
            raise NotImplementedError(_NOT_SUPPORTED.format(
                op=f"matmul of a {self.ndim}-D sparse and a {dense.ndim}-D tensor"))
        if dense.shape[0] != self.shape[1]:
            raise RuntimeError(f"addmm: Argument #3 (dense): Expected dim 0 size "
                               f"{self.shape[1]}, got {dense.shape[0]}")
        if dense.dtype is not self.dtype:
            raise RuntimeError(f"expected scalar type {self.dtype._legacy_name[:-6]} but "
                               f"found {dense.dtype._legacy_name[:-6]}")
        matrix = dense if dense.ndim == 2 else dense.unsqueeze(1)
        product = SparseDenseMM.apply(self._sparse_values, matrix, self._sparse_indices,
                                      tuple(self.shape))
        return product if dense.ndim == 2 else product.squeeze(1)

    def _rmatmul(self, dense: Tensor) -> Tensor:
        """dense (a matrix) @ self (a sparse matrix), as (self.T @ dense.T).T."""
        if dense.ndim != 2:
            raise NotImplementedError(_NOT_SUPPORTED.format(
                op=f"matmul of a {dense.ndim}-D and a sparse tensor"))
        return self.t()._matmul(dense.t()).t()

    def __add__(self, other):
        return self.add(other)

    def __radd__(self, other):
        """dense + sparse: a dense tensor (type promotion as for two dense tensors)."""
        if isinstance(other, Tensor) and not other.is_sparse:
            return other + self.to_dense()
        return NotImplemented

    def add(self, other, *, alpha=1) -> "SparseCooTensor":
        if not isinstance(other, Tensor):
            raise NotImplementedError(_NOT_SUPPORTED.format(op="sparse + scalar"))
        if not other.is_sparse:
            raise RuntimeError("add(sparse, dense) is not supported. Use add(dense, sparse) "
                               "instead.")
        if other.shape != self.shape:
            raise RuntimeError(f"add: expected sizes of 'self' and 'other' to match, but "
                               f"{list(self.shape)} != {list(other.shape)}")
        theirs = other._sparse_values if alpha == 1 else other._sparse_values * alpha
        indices = np.concatenate([self._sparse_indices, other._sparse_indices], axis=1)
        total = SparseCooTensor._make(indices, cat([self._sparse_values, theirs]),
                                      tuple(self.shape), False)
        # the sum of coalesced tensors is coalesced, as in torch (uncoalesced sums keep
        # every entry: torch merges some of them, with the same dense value)
        return total.coalesce() if self._coalesced and other._coalesced else total

    def _scaled(self, values: Tensor) -> "SparseCooTensor":
        return SparseCooTensor._make(self._sparse_indices, values, tuple(self.shape),
                                     self._coalesced)

    def __mul__(self, other):
        if isinstance(other, Tensor) and other.ndim:
            raise NotImplementedError(_NOT_SUPPORTED.format(op="sparse * tensor"))
        return self._scaled(self._sparse_values * other)

    __rmul__ = __mul__

    def __truediv__(self, other):
        if isinstance(other, Tensor) and other.ndim:
            raise NotImplementedError(_NOT_SUPPORTED.format(op="sparse / tensor"))
        return self._scaled(self._sparse_values / other)

    def __neg__(self):
        return self._scaled(-self._sparse_values)

    def __sub__(self, other):
        return self.add(other, alpha=-1)

    def sum(self, dim=None, keepdim: bool = False, dtype=None) -> Tensor:
        """The sum of all entries (a 0-dim dense tensor); sums over dims are not supported."""
        if dim is not None:
            raise NotImplementedError(_NOT_SUPPORTED.format(op="sum over dims"))
        return self._sparse_values.sum(dtype=dtype)


def sparse_coo_tensor(indices, values, size=None, *, dtype=None, device=None,
                      pin_memory: bool = False, requires_grad: bool = False,
                      check_invariants=None, is_coalesced=None) -> SparseCooTensor:
    """A sparse COO tensor with `values` at `indices` (sparse_dim x nnz); size defaults to
    one past the largest index along each dimension."""
    check_device(device)
    indices = np.asarray(indices.numpy(force=True) if isinstance(indices, Tensor) else indices)
    if indices.ndim != 2:
        raise RuntimeError(f"indices must be sparse_dim x nnz, but got: {list(indices.shape)}")
    if indices.dtype.kind not in "iu":
        raise RuntimeError("indices must be an int64 tensor")
    values = values if isinstance(values, Tensor) else as_tensor(values)
    if dtype is not None and values.dtype is not dtype:
        values = values.to(dtype)
    if values.ndim != 1:
        raise NotImplementedError("sparse_coo_tensor: values with dense dimensions (hybrid "
                                  "sparse tensors) are not supported by ember")
    if indices.shape[1] != values.shape[0]:
        raise RuntimeError(f"indices and values must have same nnz, but got nnz from indices: "
                           f"{indices.shape[1]}, nnz from values: {values.shape[0]}")
    if size is None:
        size = tuple(int(m) + 1 for m in indices.max(axis=1)) if indices.shape[1] else \
            (0,) * indices.shape[0]
    size = tuple(int(n) for n in size)
    if len(size) != indices.shape[0]:
        raise RuntimeError(f"'len(size) == sparse_dim + dense_dim' is not satisfied: len(size) "
                           f"= {len(size)}, sparse_dim = {indices.shape[0]}, dense_dim = 0")
    for dim, (n, column) in enumerate(zip(size, indices)):
        if column.size and (column.min() < 0 or column.max() >= n):
            found = column.min() if column.min() < 0 else column.max()
            raise RuntimeError(f"size is inconsistent with indices: for dim {dim}, size is {n} "
                               f"but found index {found}")
    if requires_grad:
        values = values.detach().requires_grad_()
    return SparseCooTensor._make(indices.astype(np.int64), values, size,
                                 bool(is_coalesced) or indices.shape[1] < 2)


def to_sparse(self: Tensor, sparse_dim=None, *, layout=None, blocksize=None,
              dense_dim=None) -> SparseCooTensor:
    """The sparse COO tensor of this dense tensor's nonzero entries (Tensor.to_sparse)."""
    if layout not in (None, _layout.sparse_coo) or blocksize is not None:
        raise NotImplementedError(f"to_sparse: layout={layout} is not supported by ember (only "
                                  "torch.sparse_coo)")
    if (sparse_dim not in (None, self.ndim)) or dense_dim not in (None, 0):
        raise NotImplementedError("to_sparse: sparse_dim/dense_dim (hybrid sparse tensors) "
                                  "are not supported by ember")
    if self.is_sparse:
        return self
    if self.ndim == 0:
        raise NotImplementedError("to_sparse of a 0-dim tensor is not supported by ember")
    indices = np.stack(np.nonzero(self.numpy(force=True))).astype(np.int64)
    values = self[tuple(Tensor._wrap(index) for index in indices)]
    return SparseCooTensor._make(indices, values, tuple(self.shape), True)


def to_sparse_coo(self: Tensor) -> SparseCooTensor:
    """This tensor in the sparse COO layout (indices and values of its non-zeros)."""
    return to_sparse(self)


def to_dense(self: Tensor, dtype=None, *, masked_grad=None) -> Tensor:
    """A strided tensor is already dense: itself (cast to dtype if given)."""
    return self if dtype is None else self.to(dtype)
