"""What every torch.masked operation does first: turn `dim` into a sorted tuple, bring the
mask to the input's shape, and replace the masked-out elements by the identity of the
operation (0 for sum, 1 for prod, -inf for amax ...), so that the plain op computes the
masked result.

A MaskedTensor input brings its own mask. Its masked-out elements are replaced in the
same way, but the gradient passes back unchanged (as torch's does): the gradient of a
MaskedTensor is only defined at its masked-in elements.
"""
from __future__ import annotations

import numpy as np

from .. import _layout
from .._dtype import bool as bool_dtype
from .._type_info import iinfo
from .._tensor import Tensor
from ..autograd.function import Function
from ..ops.creation import tensor
from ..ops.pointwise import where
from ..ops.shape import broadcast_to
from .maskedtensor.core import is_masked_tensor


def canonical_dim(dim, ndim: int) -> tuple:
    """`dim` (None, an int or a sequence) as a sorted tuple of non-negative dims; None and
    () mean every dim."""
    if dim is None or dim == ():
        return tuple(range(ndim))
    ndim = max(ndim, 1)
    dims = []
    for d in (dim,) if isinstance(dim, int) else dim:
        if d >= ndim or d < -ndim:
            raise IndexError(f"Dimension out of range (expected to be in range of [{-ndim}, "
                             f"{ndim - 1}], but got {d})")
        if d % ndim in dims:
            raise RuntimeError(f"dim={d} appears multiple times in the list of dims")
        dims.append(d % ndim)
    return tuple(sorted(dims))


def check_strided(op: str, *tensors) -> None:
    """ember's masked operations take dense (strided) inputs and masks only."""
    for t in tensors:
        if t is not None and t.layout != _layout.strided:
            raise NotImplementedError(f"torch.masked.{op}: {t.layout} input or mask is not "
                                      "supported by ember; call .to_dense() first")


def input_mask(input: Tensor, mask: Tensor) -> Tensor:
    """`mask` as a bool tensor of input's shape (broadcast when smaller)."""
    if mask.shape != input.shape:
        if mask.ndim > input.ndim:
            raise IndexError("_input_mask expected broadcastable mask (got mask dimensionality "
                             "higher than of the input)")
        mask = broadcast_to(mask, input.shape)
    return mask.to(dtype=bool_dtype)


def reduction_identity(op: str, input: Tensor, ord=2.0) -> Tensor | None:
    """The value that leaves op's result unchanged, as a 0-dim tensor of input's dtype
    (None for mean, var and std, which have none); masked-out elements take it."""
    dtype = input.dtype
    integral = not (dtype.is_floating_point or dtype.is_complex)
    if op in ("sum", "cumsum"):
        return tensor(0, dtype=dtype)
    if op in ("prod", "cumprod"):
        return tensor(1, dtype=dtype)
    if op in ("amax", "argmax", "logaddexp", "logsumexp", "amin", "argmin"):
        low = op not in ("amin", "argmin")
        if not integral:
            return tensor(-np.inf if low else np.inf, dtype=dtype)
        if dtype != bool_dtype:
            return tensor(iinfo(dtype).min if low else iinfo(dtype).max, dtype=dtype)
    elif op == "norm":
        if ord == -np.inf:
            if integral:
                raise AssertionError(f"input must be floating point, got {dtype}")
            return tensor(np.inf, dtype=dtype)
        return tensor(0, dtype=dtype)
    elif op == "median":         # nanmedian skips NaN
        return tensor(np.nan, dtype=dtype)
    elif op in ("mean", "var", "std"):
        return None
    raise NotImplementedError(f"identity of {op} on {dtype} input")


class Combine(Function):
    """A MaskedTensor's data with its masked-out elements set to `fill`; the gradient goes
    back to the data unchanged (torch's convention: it is defined where the mask is set)."""

    @staticmethod
    def forward(ctx, data, mask, fill):
        return np.where(mask, data, fill)

    @staticmethod
    def backward(ctx, grad):
        return grad, None, None


def combine_input_and_mask(op: str, input: Tensor, mask, *args) -> Tensor:
    """input with its masked-out elements replaced by op's identity: the elements where
    `mask` (or a MaskedTensor input's own mask) is False."""
    check_strided(op, input, mask)
    if is_masked_tensor(input):
        data, own_mask = input.get_data(), input.get_mask()
        return Combine.apply(data, own_mask, reduction_identity(op, data, *args))
    if mask is None:
        return input
    return where(input_mask(input, mask), input, reduction_identity(op, input, *args))
