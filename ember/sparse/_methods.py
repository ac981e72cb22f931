"""The methods and operators of SparseCooTensor: argument checks with torch's errors,
then the Functions of _functions.py. Bound to the class at the end of this module."""
from __future__ import annotations

import numpy as np

from .._device import check_device
from .._modes import current as current_modes
from .._tensor import Tensor, parse_to_args
from . import _functions as F
from ._coo import SparseCooTensor, not_supported


def _is_scalar(other) -> bool:
    return not isinstance(other, Tensor) or (other.ndim == 0 and not other.is_sparse)


def _constant(other):
    """A Python number, or a 0-dim tensor that needs no gradient, as a multiplier."""
    if isinstance(other, Tensor):
        if other.requires_grad:
            raise not_supported("a sparse tensor times a 0-dim tensor that requires grad")
        return other.item()
    return other


def _check_same_size(self: Tensor, other: Tensor, op: str) -> None:
    if tuple(other.shape) != tuple(self.shape):
        raise RuntimeError(f"{op}: expected sizes of 'self' and 'other' to match, but "
                           f"{list(self.shape)} != {list(other.shape)}")


# -- conversions ---------------------------------------------------------------------------
def coalesce(self: SparseCooTensor) -> SparseCooTensor:
    """The same tensor with sorted, unique indices (values of repeated indices summed)."""
    return self if self._coalesced else F.Coalesce.apply(self)


def to_dense(self: SparseCooTensor, dtype=None, *, masked_grad=None) -> Tensor:
    """The dense (strided) tensor; a gradient reaching it comes back on self's pattern."""
    if masked_grad is False:
        raise NotImplementedError("to_dense: masked_grad=False is not supported by ember")
    return F.ToDense.apply(self, dtype)


def values(self: SparseCooTensor) -> Tensor:
    """The values of a coalesced tensor ((nnz, *dense_shape)), differentiable."""
    self._check_coalesced("values")
    return F.Values.apply(self)


def to(self: SparseCooTensor, *args, **kwargs) -> SparseCooTensor:
    """self with values of another dtype (the device is always the CPU)."""
    copy = kwargs.pop("copy", False)
    dtype, dev, _ = parse_to_args(args, kwargs)
    check_device(dev)
    if (dtype is None or dtype is self.dtype) and not copy:
        return self
    return F.ToCopy.apply(self, dtype or self.dtype)


def detach(self: SparseCooTensor) -> SparseCooTensor:
    """The same indices and values, cut from the autograd graph."""
    return self._like(self._sparse_indices, self._sparse_values)


def clone(self: SparseCooTensor, *, memory_format=None) -> SparseCooTensor:
    """A copy with its own indices and values."""
    return F.Clone.apply(self)


def t(self: SparseCooTensor) -> SparseCooTensor:
    """The transpose of a sparse matrix (a vector is returned as it is)."""
    if self.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is "
                           f"{self.ndim}D")
    return F.T.apply(self, 0, 1) if self.ndim == 2 else self


def transpose(self: SparseCooTensor, dim0: int, dim1: int) -> SparseCooTensor:
    """self with sparse dims dim0 and dim1 swapped."""
    dim0, dim1 = self._wrap_dim(dim0), self._wrap_dim(dim1)
    if max(dim0, dim1) >= self.sparse_dim():
        raise not_supported("transpose of a dense dim")
    return F.Transpose.apply(self, dim0, dim1)


def _assign_(self: SparseCooTensor, result: SparseCooTensor) -> SparseCooTensor:
    """Make self hold result's entries (an in-place op's result), counted as one write."""
    if self.requires_grad and current_modes().grad_enabled:
        raise not_supported("in-place ops on a sparse tensor that requires grad")
    self._sparse_indices, self._coalesced = result._sparse_indices, result._coalesced
    self._sparse_values = result._sparse_values.to(self.dtype)
    self._bump_version()
    return self


def add_(self: SparseCooTensor, other, *, alpha=1) -> SparseCooTensor:
    """In-place self += alpha * other for a sparse other (as add)."""
    return _assign_(self, add(self, other, alpha=alpha))


def mul_(self: SparseCooTensor, other) -> SparseCooTensor:
    """In-place self *= other (as mul)."""
    return _assign_(self, mul(self, other))


def div_(self: SparseCooTensor, other) -> SparseCooTensor:
    """In-place self /= a number."""
    return _assign_(self, div(self, other))


def zero_(self: SparseCooTensor) -> SparseCooTensor:
    """Remove every entry, in place (nnz becomes 0)."""
    self._sparse_indices = np.zeros((self.sparse_dim(), 0), np.int64)
    self._sparse_values = self._sparse_values[:0].clone()
    self._coalesced = True
    self._bump_version()
    return self


def requires_grad_(self: SparseCooTensor, requires_grad: bool = True) -> SparseCooTensor:
    """Make this sparse leaf record operations (its .grad then arrives after backward)."""
    self.requires_grad = requires_grad
    return self


def reduce_ex(self: SparseCooTensor, protocol):
    """Pickle support (torch.save writes torch's own form, see ember.serialization)."""
    return (_rebuild, (self._sparse_indices, self._sparse_values.detach(), tuple(self.shape),
                       self._coalesced, self.requires_grad))


def _rebuild(indices, values, size, coalesced, requires_grad) -> SparseCooTensor:
    rebuilt = SparseCooTensor._make(indices, values, size, coalesced)
    return rebuilt.requires_grad_() if requires_grad else rebuilt


def deepcopy(self: SparseCooTensor, memo: dict) -> SparseCooTensor:
    """A copy with its own indices and values (and self's requires_grad)."""
    if id(self) not in memo:
        memo[id(self)] = _rebuild(self._sparse_indices.copy(), self._sparse_values.clone(),
                                  tuple(self.shape), self._coalesced, self.requires_grad)
    return memo[id(self)]


# -- products ------------------------------------------------------------------------------
def _check_mm(sparse: SparseCooTensor, dense: Tensor) -> None:
    if dense.is_sparse:
        raise not_supported("sparse @ sparse")
    if sparse.ndim != 2 or sparse.dense_dim() or dense.ndim not in (1, 2):
        raise not_supported(f"matmul of a {sparse.ndim}-D sparse and a {dense.ndim}-D tensor")
    if dense.shape[0] != sparse.shape[1]:
        raise RuntimeError(f"addmm: Argument #3 (dense): Expected dim 0 size "
                           f"{sparse.shape[1]}, got {dense.shape[0]}")
    if dense.dtype is not sparse.dtype:
        raise RuntimeError(f"expected scalar type {sparse.dtype._legacy_name[:-6]} but "
                           f"found {dense.dtype._legacy_name[:-6]}")


def matmul(self: SparseCooTensor, dense: Tensor) -> Tensor:
    """self (a sparse matrix) @ dense (a matrix or a vector): a dense result."""
    _check_mm(self, dense)
    if dense.ndim == 1:
        return F.SparseMm.apply(None, self, dense.unsqueeze(1), 1, 1).squeeze(1)
    return F.SparseMm.apply(None, self, dense, 1, 1)


def rmatmul(self: SparseCooTensor, dense: Tensor) -> Tensor:
    """dense (a matrix) @ self (a sparse matrix): a dense result."""
    if dense.ndim != 2:
        raise not_supported(f"matmul of a {dense.ndim}-D and a sparse tensor")
    _check_mm(t(self), dense.t())
    return F.DenseSparseMm.apply(dense, self)


def mm(self: SparseCooTensor, mat2: Tensor) -> Tensor:
    """The matrix product with a dense matrix."""
    if mat2.ndim != 2:
        raise RuntimeError("mat2 must be a matrix")
    return matmul(self, mat2)


# -- elementwise arithmetic --------------------------------------------------------------------
def add(self: SparseCooTensor, other, *, alpha=1) -> SparseCooTensor:
    """self + alpha * other for a sparse other of the same size (torch refuses a dense
    one here: write dense + sparse)."""
    if not isinstance(other, Tensor):
        raise not_supported("sparse + scalar")
    if not other.is_sparse:
        raise RuntimeError("add(sparse, dense) is not supported. Use add(dense, sparse) "
                           "instead.")
    _check_same_size(self, other, "add")
    return F.AddSparse.apply(self, other, alpha)


def sub(self: SparseCooTensor, other, *, alpha=1) -> SparseCooTensor:
    """self - alpha * other for a sparse other of the same size."""
    if isinstance(other, Tensor) and other.is_sparse:
        _check_same_size(self, other, "sub")
        return F.SubSparse.apply(self, other, -alpha)
    return add(self, other, alpha=-alpha)


def radd(self: SparseCooTensor, other) -> Tensor:
    """dense + sparse: a dense tensor (type promotion as for two dense tensors)."""
    if not isinstance(other, Tensor):
        return NotImplemented
    _check_same_size(other, self, "add")
    return F.AddDense.apply(other, self, 1)


def rsub(self: SparseCooTensor, other) -> Tensor:
    """dense - sparse: a dense tensor."""
    if not isinstance(other, Tensor):
        return NotImplemented
    _check_same_size(other, self, "sub")
    return F.AddDense.apply(other, self, -1)


def mul(self: SparseCooTensor, other) -> SparseCooTensor:
    """self * other: by a number, a dense tensor of the same size or a sparse one; the
    result is sparse (only self's entries can be non-zero)."""
    if _is_scalar(other):
        return F.MulScalar.apply(self, _constant(other))
    _check_same_size(self, other, "mul")
    if other.is_sparse:
        return F.MulSparse.apply(self, other)
    return F.MulDense.apply(self, other)


def div(self: SparseCooTensor, other) -> SparseCooTensor:
    """self / a number."""
    if not _is_scalar(other):
        raise not_supported("sparse / tensor")
    return F.DivScalar.apply(self, _constant(other))


def neg(self: SparseCooTensor) -> SparseCooTensor:
    """-self."""
    return F.Neg.apply(self)


def sum(self: SparseCooTensor, dim=None, keepdim: bool = False, dtype=None) -> Tensor:
    """The sum of all entries (a 0-dim dense tensor; its gradient is dense, as in torch).
    For sums over dims use torch.sparse.sum."""
    if dim is not None:
        raise not_supported("Tensor.sum over dims (use torch.sparse.sum)")
    return F.Sum.apply(self, dtype)


SparseCooTensor.coalesce = coalesce
SparseCooTensor.to_dense = to_dense
SparseCooTensor.values = values
SparseCooTensor.to = to
SparseCooTensor.detach = detach
SparseCooTensor.clone = clone
SparseCooTensor.t = t
SparseCooTensor.transpose = transpose
SparseCooTensor.zero_ = zero_
SparseCooTensor.add_ = SparseCooTensor.__iadd__ = add_
SparseCooTensor.mul_ = SparseCooTensor.__imul__ = mul_
SparseCooTensor.div_ = SparseCooTensor.__itruediv__ = div_
SparseCooTensor.requires_grad_ = requires_grad_
SparseCooTensor.__reduce_ex__ = reduce_ex
SparseCooTensor.__deepcopy__ = deepcopy
SparseCooTensor.matmul = SparseCooTensor.__matmul__ = matmul
SparseCooTensor.__rmatmul__ = rmatmul
SparseCooTensor.mm = mm
SparseCooTensor.add = SparseCooTensor.__add__ = add
SparseCooTensor.sub = SparseCooTensor.__sub__ = sub
SparseCooTensor.__radd__ = radd
SparseCooTensor.__rsub__ = rsub
SparseCooTensor.mul = SparseCooTensor.__mul__ = SparseCooTensor.__rmul__ = mul
SparseCooTensor.div = SparseCooTensor.__truediv__ = div
SparseCooTensor.neg = SparseCooTensor.__neg__ = neg
SparseCooTensor.sum = sum
