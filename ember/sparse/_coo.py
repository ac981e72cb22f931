"""SparseCooTensor: a tensor stored as coordinates (layout torch.sparse_coo).

`indices` is a sparse_dim x nnz int64 NumPy array; `values` a Tensor of shape
(nnz, *dense_shape): entry k puts values[k] at indices[:, k]. With dense dims
(a "hybrid" tensor, as Embedding's sparse gradient is) each entry is a whole slice.
Repeated indices are allowed until coalesce() sums them. Both arrays are treated as
immutable: ops build new tensors, so tensors may share them.

The tensor takes part in autograd as a whole (see _autograd.py); its values carry no
history of their own. The ops live in _methods.py, which binds them to this class; any
dense op that meets a sparse tensor refuses it with a NotImplementedError naming the op
(its `_data` is a stand-in with no memory), as torch does for ops its sparse backend
lacks.
"""
from __future__ import annotations

import math

import numpy as np

from .. import _layout
from .._printing import sparse_coo_repr
from .._tensor import Tensor, _init_fields

_NOT_SUPPORTED = ("{op}: ember's sparse COO tensors support construction, coalesce, "
                  "to_dense, torch.sparse's functions, matrix products, and elementwise "
                  "add/mul through the operators (d + s, s * d) and the sparse tensor's "
                  "methods (s.add, s.mul); call .to_dense() first for other operations")


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


def not_supported(op: str) -> NotImplementedError:
    """The error for an op ember's sparse tensors lack."""
    return NotImplementedError(_NOT_SUPPORTED.format(op=op))


class SparseCooTensor(Tensor):
    """A sparse tensor in coordinate format (torch.sparse_coo layout); see the module."""

    __slots__ = ("_sparse_indices", "_sparse_values", "_coalesced")
    layout = _layout.sparse_coo
    is_sparse = True

    @staticmethod
    def _make(indices: np.ndarray, values: Tensor, shape: tuple,
              coalesced: bool) -> "SparseCooTensor":
        """A new sparse tensor (no autograd history) on these arrays, not copied."""
        t = object.__new__(SparseCooTensor)
        _init_fields(t, _NoDenseData(tuple(shape), values.dtype.numpy), [0])
        t._sparse_indices = indices
        t._sparse_values = values
        t._coalesced = bool(coalesced) or indices.shape[1] < 2
        return t

    def _like(self, indices: np.ndarray, values: Tensor, coalesced: bool | None = None):
        """A sparse tensor of self's shape on new indices and values."""
        return SparseCooTensor._make(indices, values, tuple(self.shape),
                                     self._coalesced if coalesced is None else coalesced)

    # -- inspection ---------------------------------------------------------------------------
    def sparse_dim(self) -> int:
        """The number of sparse dims (the rows of indices)."""
        return self._sparse_indices.shape[0]

    def dense_dim(self) -> int:
        """The number of dense dims (the trailing dims of each value)."""
        return self._sparse_values.ndim - 1

    def _nnz(self) -> int:
        """The number of stored entries (repeated indices counted until coalesced)."""
        return self._sparse_indices.shape[1]

    def is_coalesced(self) -> bool:
        """Whether the indices are known to be sorted and unique."""
        return self._coalesced

    def _coalesced_(self, coalesced: bool) -> "SparseCooTensor":
        """Set the coalesced flag (the caller vouches for it); returns self."""
        self._coalesced = bool(coalesced)
        return self

    def _indices(self) -> Tensor:
        """The indices as stored (also of an uncoalesced tensor)."""
        return Tensor._wrap(self._sparse_indices)

    def _values(self) -> Tensor:
        """The values as stored, without autograd history (as in torch)."""
        return self._sparse_values.detach()

    def indices(self) -> Tensor:
        """The indices of a coalesced tensor (sparse_dim x nnz, int64)."""
        self._check_coalesced("indices")
        return self._indices()

    def _check_coalesced(self, what: str) -> None:
        if not self._coalesced:
            raise RuntimeError(f"Cannot get {what} on an uncoalesced tensor, please call "
                               ".coalesce() first")

    def _sparse_shape(self) -> tuple:
        return tuple(self.shape)[:self.sparse_dim()]

    def _linear(self) -> np.ndarray:
        from ._index import linear
        return linear(self._sparse_indices, self._sparse_shape())

    def stride(self, dim=None):
        """Zeros: a sparse tensor has no strided memory (torch answers the same)."""
        strides = (0,) * self.ndim
        return strides if dim is None else strides[self._wrap_dim(dim)]

    def is_contiguous(self, memory_format=None) -> bool:
        """False: a sparse tensor has no strided memory (torch answers the same)."""
        return False

    def __repr__(self, *, tensor_contents=None) -> str:
        return sparse_coo_repr(self._sparse_indices, self._sparse_values.numpy(force=True),
                               tuple(self.shape), self.dtype, self._grad_fn,
                               self._requires_grad)

    def numpy(self, *, force: bool = False):
        raise TypeError("can't convert Sparse layout tensor to numpy. Use Tensor.to_dense() "
                        "first.")
