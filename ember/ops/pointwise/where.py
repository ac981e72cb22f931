"""torch.where: elements of input where the condition holds, else of other."""
from __future__ import annotations

import math
import warnings

import numpy as np

from ..._cpu.mask import zero_unless
from ..._dtype import scalar_type_name
from ..._tensor import Tensor
from ...autograd.function import Function
from ._common import _with_out, operands

__all__ = ["where"]


class Where(Function):
    backward_name = "WhereBackward0"

    @staticmethod
    def forward(ctx, condition, x, y):
        ctx.save_for_backward(condition)
        a, b, target = operands(x, y)
        if _keeps_or_zeros(condition, a, b):
            return zero_unless(a, condition)
        return np.where(condition, a, b).astype(target, copy=False)

    @staticmethod
    def backward(ctx, grad):
        (condition,) = ctx._unpacked_saved
        need_x, need_y = ctx.needs_input_grad[1:]
        return (None, where(condition, grad, 0.0) if need_x else None,
                where(condition, 0.0, grad) if need_y else None)


def _keeps_or_zeros(condition, a, b) -> bool:
    """Whether where(condition, a, b) is a float array a kept where condition holds and +0
    elsewhere (a gradient passed through a mask): zero_unless does that without branching."""
    return (type(b) in (int, float) and b == 0 and math.copysign(1.0, b) > 0
            and isinstance(a, np.ndarray) and a.dtype.kind == "f"
            and a.shape == np.shape(condition) and condition.dtype == np.bool_)


def where(condition: Tensor, input=None, other=None, *, out=None):
    """Elementwise choice: input where condition holds, other elsewhere (either may be a
    number). With only a condition, the indices of its nonzero elements (nonzero)."""
    if input is None and other is None:
        return condition.nonzero(as_tuple=True)
    kind = condition._data.dtype
    if kind == np.uint8:
        warnings.warn("where received a uint8 condition tensor. This behavior is deprecated "
                      "and will be removed in a future version of PyTorch. Use a boolean "
                      "condition instead.", UserWarning, stacklevel=2)
    elif kind != np.bool_:
        raise RuntimeError("where expected condition to be a boolean tensor, but got a tensor "
                           f"with dtype {scalar_type_name(kind)}")
    return _with_out(Where.apply(condition, input, other), out)


# ---------------------------------------------------------------- comparison, logic, bits
