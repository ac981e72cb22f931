"""torch.hash_tensor: a uint64 fingerprint of a tensor's values, whole or along dims.

Mode 0 (the only one torch has) widens each element to its 64-bit kind -- floating types
to float64, signed integers to int64 (sign-extended), uint8 and bool to their unsigned
value -- reads those 64 bits as an unsigned integer and combines them by xor.
"""
from __future__ import annotations

import numpy as np

from .._dtype import refuse_limited, unsupported_kernel
from .._tensor import Tensor
from ._nondifferentiable import nondifferentiable, run
from .pointwise import _with_out
from .reduction import reduce_dims

__all__ = ["hash_tensor"]
METHODS = ["hash_tensor"]

_U64 = np.dtype(np.uint64)


def _bit_patterns(data: np.ndarray) -> np.ndarray:
    """Each element widened to 64 bits (as the module docstring says), viewed as uint64."""
    if data.dtype.kind in "fV":
        return data.astype(np.float64).view(_U64)
    if data.dtype.kind == "i":
        return data.astype(np.int64).view(_U64)
    if data.dtype.kind in "ub":
        return data.astype(_U64)
    raise unsupported_kernel("xor_sum_cpu", data.dtype)


def _xor_reduce(input: Tensor, axes, keepdim: bool) -> np.ndarray:
    data = input._data
    refuse_limited(data, "xor_sum_cpu")
    bits = _bit_patterns(data)
    return np.asarray(np.bitwise_xor.reduce(bits, axis=axes, keepdims=keepdim))


HashTensor = nondifferentiable("hash_tensor", _xor_reduce)


def hash_tensor(input: Tensor, dim=None, *, keepdim: bool = False, mode: int = 0,
                out: Tensor | None = None) -> Tensor:
    """A uint64 hash of input's elements (the xor of their 64-bit patterns, mode=0), over
    every element or, with `dim` (an int or a sequence), along those dims (kept with size 1
    when keepdim). The result never requires grad."""
    if mode != 0:
        raise RuntimeError(f"Unknown hash_tensor mode: {mode}")
    axes = reduce_dims(input, dim)
    shape = input._data.shape
    if axes is None and input._data.size == 0:
        raise RuntimeError("hash_tensor: Expected reduction dim to be specified for "
                           "input.numel() == 0. Specify the reduction dim with the 'dim' "
                           "argument.")
    for axis in axes or ():
        if shape[axis] == 0:
            raise IndexError(f"hash_tensor: Expected reduction dim {axis} to have non-zero "
                             "size.")
    if axes is None and keepdim:
        axes = tuple(range(input._data.ndim))
    return _with_out(run(HashTensor, input, axes, keepdim), out)
