"""Elementwise ops: arithmetic, unary math, comparisons, logical and bitwise ops.

Binary ops promote their operands with torch's rules (`_dtype.result_type`) and
broadcast with NumPy; the engine sums broadcast gradients back to each input's
shape, so backward here is written as if shapes matched.

The family's files, each building on the ones before it:
- _common.py: operand promotion and casting, float math for the low-precision types,
  out= handling, saved operands;
- where.py: torch.where;
- unary.py: unary math;
- arithmetic.py: add, sub, mul, div, pow, dtype conversion, comparisons, logical and
  bitwise ops;
- binary.py: binary math, clamp/lerp/addcmul and the direct in-place ops.
This package gathers them into one namespace, METHODS and INPLACE list.
"""
from ..._tensor import Tensor
from . import arithmetic, binary, unary
from ._common import (_F32, _LOW_PRECISION, _cast, _check_broadcast, _check_int_divisor,  # noqa: F401
                      _compute, _float_result_type, _save_operands, _saved_operands, _scalar,
                      _unsupported, _with_out, _zeros_like, data_of, float_math, operands,
                      result_type, scalar_type_name, to_float)
from .arithmetic import *  # noqa: F401,F403
from .arithmetic import (Add, Clone, Div, Mul, Neg, Pow, Sub, ToCopy, _nondiff_binary,  # noqa: F401
                         clone, reflected_div, rsub, to, to_dtype)
from .binary import *  # noqa: F401,F403
from .binary import (add_, addcdiv_, addcmul_, clamp_, copy_, div_, fill_, lerp_,  # noqa: F401
                     mul_, sqrt_, sub_, zero_)
from .unary import *  # noqa: F401,F403
from .where import Where, where  # noqa: F401

METHODS = arithmetic.METHODS + unary.METHODS + binary.METHODS
INPLACE = arithmetic.INPLACE + unary.INPLACE + binary.INPLACE
__all__ = arithmetic.__all__ + ["where"] + unary.__all__ + binary.__all__


def _where_method(self: Tensor, condition: Tensor, other) -> Tensor:
    """self where condition is True, other elsewhere (torch.where(condition, self, other))."""
    return where(condition, self, other)


def _polygamma_method(self: Tensor, n: int) -> Tensor:
    """psi^(n) of self (torch.polygamma(n, self))."""
    return unary.polygamma(n, self)


def _polygamma_inplace(self: Tensor, n: int) -> Tensor:
    """In-place Tensor.polygamma: writes psi^(n) of self into self, returns self."""
    return self._inplace(lambda s: unary.polygamma(n, s))


def _map_(self: Tensor, tensor: Tensor, callable) -> Tensor:
    """Legacy, in place: each element of self becomes callable(it, the matching element of
    `tensor`, broadcast to self's shape), both as Python numbers; returns self."""
    other = tensor.expand_as(self)
    values = [callable(a, b) for a, b in zip(self.flatten().tolist(), other.flatten().tolist())]
    from ..creation import tensor as make_tensor
    return self.copy_(make_tensor(values, dtype=self.dtype).reshape(self.shape))


# Bound here rather than through METHODS: Tensor.where takes self as the chosen values,
# not as the condition, Tensor.polygamma takes self second, Tensor.to has no torch.to
# twin, and real/imag are properties.
Tensor.where = _where_method
Tensor.polygamma, Tensor.polygamma_ = _polygamma_method, _polygamma_inplace
Tensor.map_ = _map_
Tensor.float_power_ = arithmetic.float_power_
Tensor.to = to
Tensor.real = property(unary.real)
Tensor.imag = property(unary.imag)
