"""make_tensor: random test tensors of any dtype, drawn from ember's generator."""
from __future__ import annotations

import collections.abc
import math
import warnings

from .. import _dtype
from .._tensor import Tensor

__all__ = ["make_tensor"]

_INTEGRAL = (_dtype.uint8, _dtype.int8, _dtype.int16, _dtype.int32, _dtype.int64)
_FLOATING = (_dtype.float16, _dtype.bfloat16, _dtype.float32, _dtype.float64)
_COMPLEX = (_dtype.complex64, _dtype.complex128)


def _value_range(dtype, low, high, lowest: float, highest_exclusive: float,
                 default_low: float, default_high: float) -> tuple:
    """[low, high) after defaults, checks and clamping to what `dtype` can hold."""
    low = default_low if low is None else low
    high = default_high if high is None else high
    if any(isinstance(v, float) and math.isnan(v) for v in (low, high)):
        raise ValueError(f"`low` and `high` cannot be NaN, but got low={low} and high={high}")
    if low == high and dtype in _FLOATING + _COMPLEX:
        warnings.warn("Passing `low==high` to `torch.testing.make_tensor` for floating or "
                      "complex types is deprecated since 2.1 and will be removed in 2.3. "
                      "Use `torch.full(...)` instead.", FutureWarning, stacklevel=3)
    elif low >= high:
        raise ValueError(f"`low` must be less than `high`, but got {low} >= {high}")
    elif high < lowest or low >= highest_exclusive:
        raise ValueError(f"The value interval specified by `low` and `high` is [{low}, {high}), "
                         f"but {dtype} only supports [{lowest}, {highest_exclusive})")
    low = min(max(low, lowest), highest_exclusive)
    high = min(max(high, lowest), highest_exclusive)
    if dtype in _INTEGRAL or dtype is _dtype.bool:
        # randint's upper bound is exclusive, so both ends round up.
        return math.ceil(low), math.ceil(high)
    return low, high


def _random_integers(shape: tuple, dtype, device, low, high) -> Tensor:
    from .. import iinfo, randint
    if dtype is _dtype.bool:
        low, high = _value_range(dtype, low, high, 0, 2, 0, 2)
    else:
        info = iinfo(dtype)
        # randint works in int64, so the int64 maximum itself cannot be drawn.
        top = info.max + (dtype is not _dtype.int64)
        low, high = _value_range(dtype, low, high, info.min, top, -9, 10)
    return randint(low, high, shape, dtype=dtype, device=device)


def _random_floats(shape: tuple, dtype, device, low, high) -> Tensor:
    from .. import empty, finfo, view_as_real
    info = finfo(dtype)
    low, high = _value_range(dtype, low, high, info.min, info.max, -9, 9)
    result = empty(shape, dtype=dtype, device=device)
    target = view_as_real(result) if dtype in _COMPLEX else result
    if high - low >= info.max:   # the width itself would overflow: draw half, then double
        target.uniform_(low / 2, high / 2).mul_(2)
    else:
        target.uniform_(low, high)
    return result


def make_tensor(*shape, dtype: _dtype.dtype, device, low: float | None = None,
                high: float | None = None, requires_grad: bool = False,
                noncontiguous: bool = False, exclude_zero: bool = False,
                memory_format=None) -> Tensor:
    """A tensor of `shape` with values drawn uniformly from [low, high).

    Default ranges: bool [0, 2), unsigned [0, 10), signed integers [-9, 10), floating
    and complex [-9, 9). `noncontiguous` returns a strided view (when there are at
    least two elements); `exclude_zero` replaces zeros by 1 (integers) or finfo.tiny.
    """
    if len(shape) == 1 and isinstance(shape[0], collections.abc.Sequence):
        shape = shape[0]
    shape = tuple(shape)
    if noncontiguous and memory_format is not None:
        raise ValueError("The parameters `noncontiguous` and `memory_format` are mutually "
                         f"exclusive, but got noncontiguous={noncontiguous} and "
                         f"memory_format={memory_format}")
    integral = dtype in _INTEGRAL or dtype is _dtype.bool
    if requires_grad and integral:
        raise ValueError("`requires_grad=True` is not supported for boolean and integral "
                         f"dtypes, but got dtype={dtype}")
    noncontiguous = noncontiguous and math.prod(shape) > 1
    if noncontiguous:   # draw twice the last dimension, then keep every other column
        shape = (*shape[:-1], 2 * shape[-1])
    if integral:
        result = _random_integers(shape, dtype, device, low, high)
    elif dtype in _FLOATING + _COMPLEX:
        result = _random_floats(shape, dtype, device, low, high)
    else:
        raise TypeError(f"The requested dtype '{dtype}' is not supported by "
                        "torch.testing.make_tensor(). To request support, file an issue at: "
                        "https://github.com/pytorch/pytorch/issues")
    if noncontiguous:
        result = result[..., 1::2]   # the offset of 1 also catches storage-offset bugs
    elif memory_format is not None:
        result = result.clone(memory_format=memory_format)
    if exclude_zero:
        from .. import finfo
        result[result == 0] = 1 if integral else finfo(dtype).tiny
    if not integral:
        result.requires_grad = requires_grad
    return result
