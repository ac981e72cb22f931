"""Elementwise functions of one MaskedTensor: the function of the data, the mask kept
(mt.exp(), mt.clamp(0, 1), -mt, abs(mt) ...); the in-place forms (mt.exp_()) change the
data in place."""
from __future__ import annotations

from ..._tensor import Tensor
from .core import MaskedTensor

__all__ = []

# The unary ops torch defines on MaskedTensors.
UNARY_NAMES = [
    "abs", "absolute", "acos", "arccos", "acosh", "arccosh", "angle", "asin", "arcsin", "asinh",
    "arcsinh", "atan", "arctan", "atanh", "arctanh", "bitwise_not", "ceil", "clamp", "clip",
    "conj_physical", "cos", "cosh", "deg2rad", "digamma", "erf", "erfc", "erfinv", "exp", "exp2",
    "expm1", "fix", "floor", "frac", "lgamma", "log", "log10", "log1p", "log2", "logit", "i0",
    "isnan", "nan_to_num", "neg", "negative", "positive", "pow", "rad2deg", "reciprocal",
    "round", "rsqrt", "sigmoid", "sign", "sgn", "signbit", "sin", "sinc", "sinh", "sqrt",
    "square", "tan", "tanh", "trunc"]
INPLACE_NAMES = [name + "_" for name in UNARY_NAMES
                 if name not in ("angle", "positive", "signbit", "isnan", "conj_physical")]
OPERATORS = {"__neg__": "neg", "__pos__": "positive", "__abs__": "abs",
             "__invert__": "bitwise_not", "__pow__": "pow"}


def _unary(name: str):
    op = getattr(Tensor, name)
    inplace = name.endswith("_")

    def method(self, *args, **kwargs):
        if any(isinstance(a, Tensor) for a in (*args, *kwargs.values())):
            raise TypeError("MaskedTensor unary ops do not support additional Tensor arguments")
        result = op(self._masked_data, *args, **kwargs)
        return self if inplace else MaskedTensor._make(result, self._masked_mask)

    method.__name__ = name
    method.__doc__ = f"Tensor.{name} of the data; the mask is kept."
    return method


for _name in UNARY_NAMES + INPLACE_NAMES:
    setattr(MaskedTensor, _name, _unary(_name))
for _operator, _name in OPERATORS.items():
    setattr(MaskedTensor, _operator, _unary(_name))
