"""Variable: the pre-0.4 wrapper, kept as torch keeps it.

`Variable(data, requires_grad=False)` gives a new tensor that shares `data`'s storage, has
no history, and requires grad as asked (as `data.detach().requires_grad_(requires_grad)`);
`isinstance(t, Variable)` is true for every tensor."""
from __future__ import annotations

import warnings

import numpy as np

from .._tensor import Tensor

__all__ = ["Variable"]


class _VariableMeta(type):
    def __instancecheck__(cls, other) -> bool:
        return isinstance(other, Tensor)


class Variable(metaclass=_VariableMeta):
    """A tensor made from `data` with no history: see the module docstring."""

    def __new__(cls, data=None, requires_grad: bool = False, volatile: bool = False):
        if volatile:
            warnings.warn("volatile was removed and now has no effect. Use "
                          "`with torch.no_grad():` instead.", UserWarning, stacklevel=2)
        if data is None:
            data = Tensor._wrap(np.empty(0, dtype=np.float32))  # Variable() is tensor([])
        if not isinstance(data, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        if requires_grad and not (data.is_floating_point() or data.is_complex()):
            raise RuntimeError("Only Tensors of floating point and complex dtype can require "
                               "gradients")
        return data.detach().requires_grad_(bool(requires_grad))
