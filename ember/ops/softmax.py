"""softmax and log_softmax: torch.softmax / Tensor.softmax (dim required), and the
primitives F.softmax, F.log_softmax, F.softmin and the losses build on."""
from __future__ import annotations

import warnings

import numpy as np

from .. import _dtype
from .._cpu import kernels
from .._tensor import Tensor
from ..autograd.function import Function
from ..autograd.fused_backward import FusedBackward
from .pointwise import float_math

__all__ = ["softmax", "log_softmax"]
METHODS = ["softmax", "log_softmax"]

_LOW_PRECISION = _dtype.LOW_PRECISION_NUMPY


def _family():
    return kernels.family("softmax")


class Softmax(Function):
    backward_name = "SoftmaxBackward0"
    saves_outputs = True

    @staticmethod
    def forward(ctx, x, dim):
        ctx.dim = dim
        return float_math(_family().softmax, x, dim)

    @staticmethod
    def backward(ctx, grad):
        return _SoftmaxGrad.apply(grad, ctx.output(0), ctx.dim), None


class LogSoftmax(Function):
    backward_name = "LogSoftmaxBackward0"
    saves_outputs = True

    @staticmethod
    def forward(ctx, x, dim):
        ctx.dim = dim
        return float_math(_family().log_softmax, x, dim)

    @staticmethod
    def backward(ctx, grad):
        return _LogSoftmaxGrad.apply(grad, ctx.output(0), ctx.dim), None


class _SoftmaxGrad(FusedBackward):
    """Softmax's gradient from its output y: y * (grad - sum(grad * y))."""
    backward_name = "SoftmaxBackwardDataBackward0"
    kernel = "softmax_backward"

    @staticmethod
    def forward(ctx, grad, y, dim):
        ctx.save_for_backward(grad, y)
        ctx.dim = dim
        return _run_backward_kernel(getattr(_family(), type(ctx).kernel), y, grad, dim)

    @staticmethod
    def derivative(ctx, grad, y):
        return y * (grad - (grad * y).sum(ctx.dim, keepdim=True))


class _LogSoftmaxGrad(_SoftmaxGrad):
    """log_softmax's gradient from its output y: grad - exp(y) * sum(grad)."""
    backward_name = "LogSoftmaxBackwardDataBackward0"
    kernel = "log_softmax_backward"

    @staticmethod
    def derivative(ctx, grad, y):
        return grad - y.exp() * grad.sum(ctx.dim, keepdim=True)


def _run_backward_kernel(kernel, y: np.ndarray, grad: np.ndarray, dim: int) -> np.ndarray:
    """A backward kernel on arrays (16-bit floats computed in float32); a 0-d softmax is
    one element along its only axis."""
    grad = grad.astype(y.dtype, copy=False)
    if y.ndim == 0:
        return kernel(y.reshape(1), grad.reshape(1), 0).reshape(())
    if y.dtype in _LOW_PRECISION:
        return kernel(y.astype(np.float32), grad.astype(np.float32), dim).astype(y.dtype)
    return kernel(y, grad, dim)


def _softmax_dim(name: str, ndim: int, stacklevel: int) -> int:
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. Change the call "
                  "to include dim=X as an argument.", UserWarning, stacklevel=stacklevel)
    return 0 if ndim in (0, 1, 3) else 1


def softmax_like(fn_cls, name, input, dim, stacklevel, dtype, negate=False) -> Tensor:
    """fn_cls (Softmax or LogSoftmax) of input along dim, with torch's checks and its
    deprecated implicit dim (F.softmax without dim); `negate` gives softmin."""
    if not isinstance(input, Tensor):
        raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
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
