"""softmax and log_softmax: torch.softmax / Tensor.softmax (dim required), and the
primitives F.softmax, F.log_softmax, F.softmin and the losses build on."""
from __future__ import annotations

import warnings

import numpy as np

from .._tensor import Tensor
from ..autograd.function import Function
from .pointwise import float_math

__all__ = ["softmax", "log_softmax"]
METHODS = ["softmax", "log_softmax"]


def _along(fn, a: np.ndarray, axis: int) -> np.ndarray:
    """Run a reduction-based kernel on `axis`, treating a 0-d array as one element."""
    if a.ndim == 0:
        return fn(a.reshape(1), 0).reshape(())
    if a.size == 0:
        return a.copy()
    return fn(a, axis)


def _softmax_kernel(a: np.ndarray, axis: int) -> np.ndarray:
    e = a - a.max(axis=axis, keepdims=True)
    np.exp(e, out=e)
    e /= e.sum(axis=axis, keepdims=True)
    return e


def _log_softmax_kernel(a: np.ndarray, axis: int) -> np.ndarray:
    shifted = a - a.max(axis=axis, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=axis, keepdims=True))


class Softmax(Function):
    backward_name = "SoftmaxBackward0"
    saves_outputs = True

    @staticmethod
    def forward(ctx, x, dim):
        ctx.dim = dim
        with np.errstate(invalid="ignore"):
            return float_math(lambda a: _along(_softmax_kernel, a, dim), x._data)

    @staticmethod
    def backward(ctx, grad):
        y = ctx.output(0)
        return y * (grad - (grad * y).sum(ctx.dim, keepdim=True)), None


class LogSoftmax(Function):
    backward_name = "LogSoftmaxBackward0"
    saves_outputs = True

    @staticmethod
    def forward(ctx, x, dim):
        ctx.dim = dim
        with np.errstate(invalid="ignore", divide="ignore"):
            return float_math(lambda a: _along(_log_softmax_kernel, a, dim), x._data)

    @staticmethod
    def backward(ctx, grad):
        y = ctx.output(0)
        return grad - y.exp() * grad.sum(ctx.dim, keepdim=True), None


def _softmax_dim(name: str, ndim: int, stacklevel: int) -> int:
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. Change the call "
                  "to include dim=X as an argument.", UserWarning, stacklevel=stacklevel)
    return 0 if ndim in (0, 1, 3) else 1


def softmax_like(fn_cls, name, input, dim, stacklevel, dtype, negate=False) -> Tensor:
    """fn_cls (Softmax or LogSoftmax) of input along dim, with torch's checks and its
    deprecated implicit dim (F.softmax without dim); `negate` gives softmin."""
    if dim is None:
        dim = _softmax_dim(name, input.ndim, stacklevel + 1)
    if dtype is not None:
        input = input.to(dtype)
    dim = input._wrap_dim(dim)
    if not (input.is_floating_point() or input.is_complex()):
        kernel = "log_softmax" if fn_cls is LogSoftmax else "softmax"
        last = "_lastdim" if dim == max(input.ndim - 1, 0) else ""
        raise NotImplementedError(
            f'"{kernel}{last}_kernel_impl" not implemented for '
            f"'{input.dtype.scalar_name}'. Hint: {name} needs a floating-point "
            "input (use .float()); inside a loss, check the argument order: "
            "criterion(output, target).")
    if negate:
        input = -input
    return fn_cls.apply(input, dim)


# torch.softmax(input, dim, dtype=None) and Tensor.softmax(dim, dtype=None): dim is required.
def softmax(input: Tensor, dim: int, dtype=None) -> Tensor:
    """exp(x) / sum(exp(x)) along dim, computed stably."""
    return softmax_like(Softmax, "softmax", input, dim, 3, dtype)


def log_softmax(input: Tensor, dim: int, dtype=None) -> Tensor:
    """log(softmax(x)) along dim, computed stably."""
    return softmax_like(LogSoftmax, "log_softmax", input, dim, 3, dtype)
