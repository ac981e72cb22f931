"""The masked normalizations of torch.masked: softmax, log_softmax, softmin, normalize,
cumsum and cumprod, along one dim.

Masked-out elements take the identity of the operation the normalization builds on
(-inf for softmax and log_softmax, inf for softmin, 0 for cumsum and normalize, 1 for
cumprod), so they contribute nothing to the masked-in ones; their own output values are
whatever that gives (0 for softmax, NaN for a fully masked-out slice), as in torch.
"""
from __future__ import annotations

from .._tensor import Tensor
from ..nn import functional as F
from ..ops import reduction as plain
from ..ops.pointwise import maximum
from ._mask import canonical_dim, combine_input_and_mask
from ._reductions import norm

__all__ = ["softmax", "log_softmax", "softmin", "normalize", "cumsum", "cumprod"]


def _along(identity_of: str, input: Tensor, dim: int, dtype, mask):
    """(masked input, one canonical dim, result dtype) for a normalization along dim."""
    masked = combine_input_and_mask(identity_of, input, mask)
    return masked, canonical_dim(dim, input.ndim)[0], input.dtype if dtype is None else dtype


def softmax(input: Tensor, dim: int, *, dtype=None, mask=None) -> Tensor:
    """exp(x) / sum(exp(x)) over the masked-in elements x of each slice along `dim`."""
    masked, dim, dtype = _along("amax", input, dim, dtype, mask)
    return F.softmax(masked, dim, dtype=dtype)


def log_softmax(input: Tensor, dim: int, *, dtype=None, mask=None) -> Tensor:
    """log(softmax(x)) over the masked-in elements x of each slice along `dim`."""
    masked, dim, dtype = _along("amax", input, dim, dtype, mask)
    return F.log_softmax(masked, dim, dtype=dtype)


def softmin(input: Tensor, dim: int, *, dtype=None, mask=None) -> Tensor:
    """exp(-x) / sum(exp(-x)) over the masked-in elements x of each slice along `dim`."""
    masked, dim, dtype = _along("amin", input, dim, dtype, mask)
    return F.softmin(masked, dim, dtype=dtype)


def normalize(input: Tensor, ord: float, dim: int, *, eps: float = 1e-12, dtype=None,
              mask=None) -> Tensor:
    """x / max(norm(x, ord), eps) for the masked-in elements x of each slice along `dim`."""
    dtype = input.dtype if dtype is None else dtype
    masked = combine_input_and_mask("sum", input, mask)
    size = norm(input, ord, dim, keepdim=True, dtype=dtype, mask=mask)
    return masked / maximum(size, size.new_full([], eps))


def cumsum(input: Tensor, dim: int, *, dtype=None, mask=None) -> Tensor:
    """Running sums of the masked-in elements along `dim` (masked-out ones add 0)."""
    masked, dim, dtype = _along("sum", input, dim, dtype, mask)
    return plain.cumsum(masked, dim, dtype=dtype)


def cumprod(input: Tensor, dim: int, *, dtype=None, mask=None) -> Tensor:
    """Running products of the masked-in elements along `dim` (masked-out ones multiply 1)."""
    masked, dim, dtype = _along("prod", input, dim, dtype, mask)
    return plain.cumprod(masked, dim, dtype=dtype)
