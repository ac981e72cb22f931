"""torch.finfo and torch.iinfo: the numerical limits of a floating point or integer dtype.

The numbers come from NumPy (ml_dtypes for bfloat16); a complex dtype reports the limits
of its real part. Python's float, complex and int stand for float64, complex128, int64.
"""
from __future__ import annotations

import builtins
import math

import ml_dtypes
import numpy as np

from . import _dtype

__all__ = ["finfo", "iinfo"]

_PYTHON_TYPES = {builtins.float: _dtype.float64, builtins.complex: _dtype.complex128,
                 builtins.int: _dtype.int64, builtins.bool: _dtype.bool}


def _resolve(type, name: str):
    type = _PYTHON_TYPES.get(type, type)
    if not isinstance(type, _dtype.dtype):
        raise TypeError(f"{name}(): argument 'type' (position 1) must be torch.dtype, not "
                        f"{builtins.type(type).__name__}")
    return type


class _TypeInfo:
    """Read-only attributes, set once by the subclass' constructor."""
    _fields: tuple = ()

    def __setattr__(self, name, value):
        raise AttributeError(f"attribute '{name}' of 'torch.{type(self).__name__}' objects "
                             "is not writable")

    def _set(self, **values) -> None:
        for name, value in values.items():
            object.__setattr__(self, name, value)

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={getattr(self, name):g}" for name in self._fields)
        return f"{type(self).__name__}({fields}, dtype={self.dtype})"


class finfo(_TypeInfo):
    """Limits of a floating point dtype: bits, eps, max, min, tiny (= smallest_normal),
    resolution (10^-digits, the decimal precision) and dtype (its name)."""
    _fields = ("resolution", "min", "max", "eps", "smallest_normal", "tiny")

    def __init__(self, type=None) -> None:
        type = _dtype.get_default_dtype() if type is None else _resolve(type, "finfo")
        if not (type.is_floating_point or type.is_complex):
            raise TypeError("torch.finfo() requires a floating point input type. Use "
                            "torch.iinfo to handle 'torch.finfo'")
        real = np.empty(0, type.numpy).real.dtype
        info = ml_dtypes.finfo(real)          # NumPy's finfo, taught bfloat16 and float8
        # torch gives float8_e5m2fnuz half the machine epsilon of its two mantissa bits.
        eps = builtins.float(info.eps) / (2 if type is _dtype.float8_e5m2fnuz else 1)
        self._set(bits=info.bits, eps=eps, max=builtins.float(info.max),
                  min=builtins.float(info.min), tiny=builtins.float(info.tiny),
                  smallest_normal=builtins.float(info.smallest_normal),
                  resolution=10.0 ** -math.floor(-math.log10(eps)),
                  dtype=_dtype.from_numpy_dtype(real).name)


class iinfo(_TypeInfo):
    """Limits of an integer dtype: bits, max, min and dtype (its name)."""
    _fields = ("min", "max")

    def __init__(self, type) -> None:
        type = _resolve(type, "iinfo")
        if type is _dtype.bool:
            raise TypeError("torch.bool is not supported by torch.iinfo")
        if type.is_floating_point or type.is_complex:
            raise TypeError("torch.iinfo() requires an integer input type. Use torch.finfo "
                            "to handle 'torch.iinfo'")
        info = np.iinfo(type.numpy)
        self._set(bits=info.bits, max=builtins.int(info.max), min=builtins.int(info.min),
                  dtype=type.name)
