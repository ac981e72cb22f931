"""Activation functions.

Each elementwise activation is one primitive: a NumPy forward and a backward
`grad * f'(x)` where f' is written with ember ops on the saved input (or output),
so second derivatives work. The smooth activations compute both directions with the
`activation` kernel family (ember/_cpu/activation.py, or its numba twin): their
backward is a FusedBackward whose ember-ops derivative runs only when the gradient is
itself differentiated (create_graph).
`inplace=True` writes the result into the input, as torch's `relu_` and friends do.
Softmax and log-softmax are single fused Functions, shifted by the row maximum for
numerical stability.
"""
from __future__ import annotations

import warnings

import numpy as np

from ... import _dtype, _sampling
from ..._cpu import kernels
from ..._cpu.activation import GELU_TANH_CUBIC, GELU_TANH_SCALE, INV_SQRT_2PI, ONE_SIXTH_FLOAT32
from ..._random import default_generator
from ..._recorded_call import replayed_call
from ..._memory_format import contiguous_format
from ..._modes import current as modes
from ..._tensor import Tensor
from ...autograd.function import Function
from ...autograd.fused_backward import FusedBackward
from ...ops import pointwise
from ...ops.indexing import _named
from ...ops.pointwise import float_math, where
from ...ops.softmax import LogSoftmax, Softmax, softmax_like as _softmax_like
from ...ops.pointwise.unary import relu_array
from ...ops.creation import empty_like, zeros_like
from ...amp.policy import LOWER, autocast_op
from ._checks import require_floating
from .dropout import _apply as _scale_by

__all__ = ["relu", "relu_", "relu6", "leaky_relu", "leaky_relu_", "rrelu", "rrelu_", "prelu",
           "elu", "elu_", "selu", "selu_", "celu", "celu_", "gelu", "silu", "mish", "sigmoid",
           "tanh", "hardtanh", "hardtanh_", "hardsigmoid", "hardswish", "softplus", "softsign",
           "softshrink", "hardshrink", "tanhshrink", "threshold", "threshold_", "logsigmoid",
           "softmax", "log_softmax", "softmin", "gumbel_softmax", "glu"]



def sigmoid(input: Tensor) -> Tensor:
    """The logistic function 1 / (1 + exp(-input)), elementwise: torch.sigmoid under the
    name torch.nn.functional gives it (a function of its own there)."""
    return pointwise.sigmoid(input)


def tanh(input: Tensor) -> Tensor:
    """The hyperbolic tangent, elementwise: torch.tanh under the name torch.nn.functional
    gives it."""
    return pointwise.tanh(input)


_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def _mask(condition: Tensor, like: Tensor) -> Tensor:
    """A bool condition as 0/1 values in like's dtype (a constant for autograd)."""
    return condition.to(like.dtype)


def _kernel(name: str):
    """The activation kernel family's function `name`, looked up at each call (the
    kernel choice may change between calls)."""
    def call(*args):
        return getattr(kernels.family("activation"), name)(*args)
    return call


def _backward_function(name: str, kernel, derivative):
    """The FusedBackward of an activation with a backward kernel: forward is
    kernel(grad, s, *params) on the arrays (16-bit floats computed in float32), or grad
    times the slope the forward kept, and
    `derivative` gives the same grad * dy/dx in ember ops when it is differentiated again."""

    def fwd(ctx, grad, saved, slope, *params):
        ctx.save_for_backward(grad, saved)
        ctx.params = params
        if slope is not None:           # dy/dx, kept by the forward (see _activation)
            return grad * slope
        if saved.dtype in _dtype.LOW_PRECISION_NUMPY:
            return kernel(grad.astype(np.float32), saved.astype(np.float32), *params) \
                .astype(saved.dtype)
        return kernel(grad, saved, *params)

    def grad_times_slope(ctx, grad, saved):
        return grad * derivative(saved, *ctx.params)

    members = {"backward_name": _DOUBLE_BACKWARD_NAMES.get(name, name + "BackwardBackward0"),
               "forward": staticmethod(fwd), "derivative": staticmethod(grad_times_slope)}
    return type(name + "Grad", (FusedBackward,), members)


# torch's names for the node of an activation's gradient where they are not
# "<Name>BackwardBackward0" (celu runs elu's kernel; silu's and mish's are products).
_DOUBLE_BACKWARD_NAMES = {"Celu": "EluBackwardBackward0", "Silu": "MulBackward0",
                          "Mish": "MulBackward0", "Relu": "ThresholdBackwardBackward0"}


def _activation(name: str, forward, derivative, from_output: bool = False,
                gate: bool = False, backward=None, with_slope=None,
                torch_kernel: str | None = None):
    """Build the Function of y = forward(x, *params) with dy/dx = derivative(s, *params),
    where s is the input tensor (or the output when from_output). With `gate`, derivative
    returns a bool condition: the gradient passes where it holds and is +0 elsewhere (as
    torch's threshold_backward; multiplying by a 0/1 mask would give -0 for negatives).
    `backward(grad, s, *params)`, when given, computes grad * dy/dx on arrays: the
    backward is then a FusedBackward running it, and `derivative` serves only that
    gradient's own derivatives (create_graph). `with_slope(x, *params)`, when given, is
    used instead of forward when x will need a gradient: it returns (y, dy/dx) computed
    together, and the backward multiplies by the kept slope, or None when the kernel
    family prefers its backward kernel.
    `torch_kernel` names torch's kernel in the error for integer, bool or complex input
    (torch has only floating implementations of those activations)."""
    gradient = None if backward is None else _backward_function(name, backward, derivative)

    def fwd(ctx, x, *params):
        if torch_kernel is not None:
            require_floating(x, torch_kernel)
        ctx.params = params
        if with_slope is not None and ctx.needs_input_grad[:1] == (True,) \
                and x.dtype not in _dtype.LOW_PRECISION_NUMPY:
            pair = with_slope(x, *params)
            if pair is not None:
                ctx.save_for_backward(x, pair[1])
                return pair[0]
        if not from_output:
            ctx.save_for_backward(x)
        with np.errstate(over="ignore", invalid="ignore"):
            return float_math(forward, x, *params)

    def bwd(ctx, grad):
        if from_output:
            saved, kept = ctx.output(0), None
        else:
            saved, *rest = ctx._unpacked_saved
            kept = rest[0] if rest else None
        if gradient is not None:
            grad = gradient.apply(grad, saved, kept, *ctx.params)
        else:
            slope = derivative(saved, *ctx.params)
            # a gate passes the gradient where it holds, +0 elsewhere (NaN and inf too)
            grad = where(slope, grad, 0.0) if gate else grad * slope
        return (grad,) + (None,) * len(ctx.params)

    members = {"backward_name": name + "Backward0", "saves_outputs": from_output,
               "saved_names": () if from_output else ("self",),
               "forward": staticmethod(fwd), "backward": staticmethod(bwd),
               "fused_backward": gradient}
    return type(name, (Function,), members)


def _run(fn_cls, input: Tensor, inplace: bool, *params) -> Tensor:
    if inplace:
        return input._inplace(lambda x: fn_cls.apply(x, *params))
    return fn_cls.apply(input, *params)


# ---------------------------------------------------------------- rectifiers
# relu's and threshold's gates pass the gradient where the output (input) is not <= the
# threshold, as torch's threshold_backward tests it: a NaN passes. (hardtanh keeps NaN's
# gradient out, as torch's vectorised loop does; its scalar loop lets it through.)
_Relu = _activation("Relu", relu_array, lambda y: (y <= 0).logical_not(), from_output=True,
                    gate=True, backward=_kernel("relu_backward"))
_LeakyRelu = _activation("LeakyRelu", lambda a, s: np.where(a > 0, a, a * s),
                         lambda x, s: _mask(x > 0, x) * (1 - s) + s)
_Hardtanh = _activation("Hardtanh", lambda a, lo, hi: np.clip(a, lo, hi),
                        lambda x, lo, hi: (x > lo) & (x < hi), gate=True)
_Threshold = _activation("Threshold", lambda a, t, v: np.where(a > t, a, a.dtype.type(v)),
                         lambda x, t, v: (x <= t).logical_not(), gate=True)


def _elu_derivative(y, alpha, scale, input_scale):
    # For x <= 0: d/dx scale*alpha*(exp(x*s) - 1) = s * (y + scale*alpha).
    positive = _mask(y > 0, y)
    return positive * scale + (1 - positive) * ((y + scale * alpha) * input_scale)


_Elu = _activation("Elu", _kernel("elu"), _elu_derivative, from_output=True,
                   backward=_kernel("elu_backward"), torch_kernel="elu_cpu")
_Celu = _activation("Celu", _kernel("elu"), _elu_derivative, from_output=True,
                    backward=_kernel("elu_backward"), torch_kernel="elu_cpu")


def relu(input: Tensor, inplace: bool = False) -> Tensor:
    """Rectified linear unit, max(0, x), elementwise (in place when inplace=True)."""
    return _run(_Relu, input, inplace)


def relu_(input: Tensor) -> Tensor:
    """In-place relu: replaces input by max(0, input) and returns it."""
    return relu(input, inplace=True)


def leaky_relu(input: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:
    """max(0, x) + negative_slope * min(0, x), elementwise (default slope 0.01)."""
    return _run(_LeakyRelu, input, inplace, negative_slope)


def leaky_relu_(input: Tensor, negative_slope: float = 0.01) -> Tensor:
    """In-place leaky_relu."""
    return leaky_relu(input, negative_slope, inplace=True)


def rrelu(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3,
          training: bool = False, inplace: bool = False) -> Tensor:
    """Randomized leaky ReLU: x for x > 0, else a * x.

    In training each non-positive element draws its own slope a ~ U(lower, upper) (the
    gradient uses the same slopes); in evaluation a = (lower + upper) / 2 everywhere."""
    if lower > upper:
        raise RuntimeError("Lower bound should be less than or equal to the upper bound")
    require_floating(input, "rrelu_with_noise_out_cpu" if training else "leaky_relu_cpu")
    out = _scale_by(input, _rrelu_noise(input, lower, upper, training), None, inplace)
    return _named(out, "RreluWithNoiseBackward" + ("1" if inplace else "0"))


@replayed_call
def _rrelu_noise(input: Tensor, lower: float, upper: float, training: bool) -> np.ndarray:
    """rrelu's factor per element: 1 where x > 0 (NaN stays NaN), elsewhere a slope drawn
    from U(lower, upper) when training (one double draw per element x <= 0, in order, as
    torch draws them), their mean otherwise."""
    x = input.numpy(force=True)
    if not training:
        return np.where(x > 0, x.dtype.type(1), x.dtype.type((lower + upper) / 2))
    factors = np.ones_like(x)
    negative = x <= 0
    factors[negative] = _sampling.uniform(default_generator, (int(negative.sum()),), lower,
                                          upper, np.float64)
    return factors


def rrelu_(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3,
           training: bool = False) -> Tensor:
    """In-place rrelu: random negative slopes from U(lower, upper) when training, their mean
    otherwise."""
    return rrelu(input, lower, upper, training, inplace=True)


def hardtanh(input: Tensor, min_val: float = -1.0, max_val: float = 1.0,
             inplace: bool = False) -> Tensor:
    """Clamp every element into [min_val, max_val] (default [-1, 1])."""
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    if not (input.is_floating_point() or input.is_complex()):
        min_val, max_val = int(min_val), int(max_val)  # integer input keeps its dtype
    return _run(_Hardtanh, input, inplace, min_val, max_val)


def hardtanh_(input: Tensor, min_val: float = -1.0, max_val: float = 1.0) -> Tensor:
    """In-place hardtanh."""
    return hardtanh(input, min_val, max_val, inplace=True)


def relu6(input: Tensor, inplace: bool = False) -> Tensor:
    """min(max(0, x), 6), elementwise."""
    return hardtanh(input, 0.0, 6.0, inplace)


def threshold(input: Tensor, threshold: float, value: float, inplace: bool = False) -> Tensor:
    """Keep the elements greater than `threshold` and replace the others by `value`."""
    return _run(_Threshold, input, inplace, threshold, value)


def threshold_(input: Tensor, threshold: float, value: float) -> Tensor:
    """In-place threshold."""
    return _run(_Threshold, input, True, threshold, value)


def elu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """Exponential linear unit: x for x > 0, alpha * (exp(x) - 1) otherwise."""
    return _run(_Elu, input, inplace, alpha, 1.0, 1.0)


def elu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    """In-place elu."""
    return elu(input, alpha, inplace=True)


def selu(input: Tensor, inplace: bool = False) -> Tensor:
    """Scaled ELU with the fixed constants that make activations self-normalising: scale * (max(0,
    x) + min(0, alpha * (exp(x) - 1)))."""
    return _run(_Elu, input, inplace, _SELU_ALPHA, _SELU_SCALE, 1.0)


def selu_(input: Tensor) -> Tensor:
    """In-place selu."""
    return selu(input, inplace=True)


def celu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """Continuously differentiable ELU: max(0, x) + min(0, alpha * (exp(x / alpha) - 1))."""
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError")
    return _run(_Celu, input, inplace, alpha, 1.0, 1.0 / alpha)


def celu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    """In-place celu."""
    return celu(input, alpha, inplace=True)


class PreluKernel(Function):
    backward_name = "PreluKernelBackward0"

    @staticmethod
    def forward(ctx, x, weight):
        ctx.save_for_backward(x, weight)
        return np.where(x > 0, x, x * weight)

    @staticmethod
    def backward(ctx, grad):
        x, weight = ctx._unpacked_saved
        positive = _mask(x > 0, x)
        return grad * (positive + (1 - positive) * weight), grad * (1 - positive) * x


@autocast_op(LOWER)
def prelu(input: Tensor, weight: Tensor) -> Tensor:
    """max(0, x) + weight * min(0, x), one weight per channel (dim 1) or a shared one."""
    if weight.ndim > 1:
        raise RuntimeError(f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: "
                           f"ndim = {weight.ndim}")
    channels = input.shape[1] if input.ndim >= 2 else 1
    if weight.numel() == 1:
        weight = weight.reshape(())  # shared: the output keeps input's shape (even 0-dim)
    else:
        if weight.numel() != channels:
            raise RuntimeError(f"Mismatch of parameter numbers and input channel size. Found "
                               f"parameter numbers = {weight.numel()} and channel size = "
                               f"{channels}.")
        weight = weight.reshape((channels,) + (1,) * max(input.ndim - 2, 0))
    return PreluKernel.apply(input, weight)


# ---------------------------------------------------------------- smooth activations
class _NormalCdf(Function):
    """Phi(x), the standard normal CDF; used inside GELU's derivative so that it can be
    differentiated again."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return float_math(_kernel("normal_cdf"), x)

    @staticmethod
    def backward(ctx, grad):
        x, = ctx._unpacked_saved
        return grad * _normal_pdf(x)


def _normal_pdf(x: Tensor) -> Tensor:
    return (x * x * -0.5).exp() * INV_SQRT_2PI


def _gelu_derivative(x, approximate):
    if approximate == "tanh":
        t = tanh(GELU_TANH_SCALE * (x + GELU_TANH_CUBIC * x * x * x))
        inner_grad = GELU_TANH_SCALE * (1 + 3 * GELU_TANH_CUBIC * x * x)
        return 0.5 * (1 + t) + 0.5 * x * (1 - t * t) * inner_grad
    return _NormalCdf.apply(x) + x * _normal_pdf(x)


_Gelu = _activation("Gelu", _kernel("gelu"), _gelu_derivative, backward=_kernel("gelu_backward"),
                    with_slope=_kernel("gelu_with_slope"), torch_kernel="GeluKernelImpl")


def gelu(input: Tensor, approximate: str = "none") -> Tensor:
    """Gaussian error linear unit, x * Phi(x) with Phi the standard normal CDF; approximate='tanh'
    uses the tanh approximation instead of erf."""
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")
    return _Gelu.apply(input, approximate)


def _softplus_derivative(x, beta, threshold):
    linear = _mask(x * beta > threshold, x)
    return linear + (1 - linear) * sigmoid(x * beta)


_Softplus = _activation("Softplus", _kernel("softplus"), _softplus_derivative,
                        backward=_kernel("softplus_backward"), torch_kernel="softplus_cpu")


def softplus(input: Tensor, beta: float = 1.0, threshold: float = 20.0) -> Tensor:
    """Smooth ReLU, log(1 + exp(beta * x)) / beta, elementwise; linear where beta * x > threshold,
    for numerical stability."""
    return _Softplus.apply(input, beta, threshold)


_Silu = _activation("Silu", _kernel("silu"), lambda x: sigmoid(x) * (1 + x * (1 - sigmoid(x))),
                    backward=_kernel("silu_backward"), torch_kernel="silu_cpu")


def _mish_derivative(x):
    t = tanh(softplus(x))
    return t + x * sigmoid(x) * (1 - t * t)


_Mish = _activation("Mish", _kernel("mish"), _mish_derivative, backward=_kernel("mish_backward"),
                    torch_kernel="mish_cpu")
_LogSigmoid = _activation("LogSigmoid", _kernel("logsigmoid"), lambda x: sigmoid(-x),
                          backward=_kernel("logsigmoid_backward"), torch_kernel="log_sigmoid_cpu")


def silu(input: Tensor, inplace: bool = False) -> Tensor:
    """Sigmoid linear unit (swish), x * sigmoid(x), elementwise. Complex input is computed
    too, without autograd (as in torch)."""
    if input.is_complex():
        return input._inplace(_complex_silu) if inplace else _complex_silu(input)
    return _run(_Silu, input, inplace)


def _complex_silu(input: Tensor) -> Tensor:
    if input.requires_grad and modes().grad_enabled:
        raise RuntimeError("silu does not support automatic differentiation for outputs with "
                           "complex dtype.")
    x = input.numpy(force=True)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        return Tensor._wrap((x / (1 + np.exp(-x))).astype(x.dtype, copy=False))


def mish(input: Tensor, inplace: bool = False) -> Tensor:
    """x * tanh(softplus(x)), elementwise."""
    return _run(_Mish, input, inplace)


def logsigmoid(input: Tensor) -> Tensor:
    """log(sigmoid(x)) computed stably as -softplus(-x), elementwise."""
    return _LogSigmoid.apply(input)


# ---------------------------------------------------------------- piecewise-linear
_Hardsigmoid = _activation("Hardsigmoid", _kernel("hardsigmoid"),
                           lambda x: _mask(x > -3, x) * _mask(x < 3, x) * ONE_SIXTH_FLOAT32,
                           backward=_kernel("hardsigmoid_backward"),
                           torch_kernel="hardsigmoid_cpu")


def _hardswish_derivative(x):
    middle = _mask(x > -3, x) * _mask(x < 3, x)
    return middle * (x / 3 + 0.5) + _mask(x >= 3, x)


_Hardswish = _activation("Hardswish", _kernel("hardswish"), _hardswish_derivative,
                         backward=_kernel("hardswish_backward"), torch_kernel="hardswish_cpu")


def _outside(x, lambd):
    """The shrinks' gate: where |x| > lambd (NaN: no), as torch's vectorised backward."""
    return (x > lambd) | (x < -lambd)


# Both keep NaN, as torch's kernels do.
_Softshrink = _activation("Softshrink",
                          lambda a, lambd: np.where(a > lambd, a - lambd,
                                                    np.where(a < -lambd, a + lambd,
                                                             np.where(np.isnan(a), a, 0)))
                          .astype(a.dtype), _outside, gate=True)
_Hardshrink = _activation("Hardshrink",
                          lambda a, lambd: np.where((a >= -lambd) & (a <= lambd), 0, a)
                          .astype(a.dtype), _outside, gate=True)


def hardsigmoid(input: Tensor, inplace: bool = False) -> Tensor:
    """Piecewise-linear sigmoid: 0 below -3, 1 above 3, x / 6 + 1/2 between."""
    return _run(_Hardsigmoid, input, inplace)


def hardswish(input: Tensor, inplace: bool = False) -> Tensor:
    """x * hardsigmoid(x): 0 below -3, x above 3, x * (x + 3) / 6 between."""
    return _run(_Hardswish, input, inplace)


def _check_lambda(input: Tensor, lambd: float) -> None:
    if lambd < 0:
        raise RuntimeError(f"lambda must be in range [0, 3.40282e+38] for input dtype "
                           f"{input.dtype.name.capitalize()}, but found {lambd:g}")


def softshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """Shrink towards zero by lambd: x - lambd above lambd, x + lambd below -lambd, 0 in between."""
    _check_lambda(input, lambd)
    return _Softshrink.apply(input, lambd)


def hardshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """Zero the elements whose magnitude is at most lambd; keep the others."""
    return _Hardshrink.apply(input, lambd)


def softsign(input: Tensor) -> Tensor:
    """x / (1 + |x|), elementwise."""
    return input / (input.abs() + 1)


def tanhshrink(input: Tensor) -> Tensor:
    """x - tanh(x), elementwise."""
    return input - tanh(input)


def glu(input: Tensor, dim: int = -1) -> Tensor:
    """First half of `dim` times the sigmoid of the second half."""
    if input.ndim == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    d = input._wrap_dim(dim)
    size = input.shape[d]
    if size % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {d} is size {size}")
    lead = (slice(None),) * d
    a = input[lead + (slice(0, size // 2),)]
    b = input[lead + (slice(size // 2, size),)]
    return a * sigmoid(b)


# ---------------------------------------------------------------- softmax family
def _require_tensor(input, method: str) -> None:
    """torch's F.softmax family calls the Tensor method (input.softmax(dim)); anything
    else fails there, with AttributeError."""
    if not isinstance(input, Tensor):
        raise AttributeError(f"'{type(input).__name__}' object has no attribute '{method}'")


def softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3,
            dtype=None) -> Tensor:
    """exp(x) / sum(exp(x)) along `dim`: each slice along dim becomes a probability distribution
    (computed in `dtype` when given)."""
    _require_tensor(input, "softmax")
    return _softmax_like(Softmax, "softmax", input, dim, _stacklevel, dtype)


def softmin(input: Tensor, dim: int | None = None, _stacklevel: int = 3,
            dtype=None) -> Tensor:
    """softmax of -input along `dim`: small values get large weights."""
    _require_tensor(input if isinstance(input, Tensor) else -input, "softmax")  # torch negates first
    return _softmax_like(Softmax, "softmin", input, dim, _stacklevel, dtype, negate=True)


def log_softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3,
                dtype=None) -> Tensor:
    """log(softmax(x)) along `dim`, computed stably as x - logsumexp(x, dim)."""
    _require_tensor(input, "log_softmax")
    return _softmax_like(LogSoftmax, "log_softmax", input, dim, _stacklevel, dtype)


def gumbel_softmax(logits: Tensor, tau: float = 1, hard: bool = False, eps: float = 1e-10,
                   dim: int = -1) -> Tensor:
    """A sample of the Gumbel-softmax distribution: softmax((logits + g) / tau) with Gumbel
    noise g = -log(Exponential(1)). With `hard`, the one-hot of the sample's argmax, whose
    gradient is the soft sample's (straight-through estimator)."""
    if eps != 1e-10:
        warnings.warn("`eps` parameter is deprecated and has no effect.", stacklevel=2)
    if not logits.is_floating_point():
        raise RuntimeError("Exponential distribution is a continuous probability distribution. "
                           f"dtype must be a floating point but you specified "
                           f"{logits.dtype.scalar_name}")
    # drawn row-major whatever logits' layout (torch asks for legacy_contiguous_format)
    gumbels = -empty_like(logits, memory_format=contiguous_format).exponential_().log()
    y_soft = ((logits + gumbels) / tau).softmax(dim)
    if not hard:
        return y_soft
    index = y_soft.max(dim, keepdim=True)[1]
    y_hard = zeros_like(logits).scatter_(dim, index, 1.0)
    return y_hard - y_soft.detach() + y_soft


# Tensor.prelu(weight) and Tensor.hardshrink(lambd): torch's methods of these two.
def _prelu_method(self: Tensor, weight: Tensor) -> Tensor:
    """prelu of self with `weight` (torch.nn.functional.prelu)."""
    return prelu(self, weight)


def _hardshrink_method(self: Tensor, lambd: float = 0.5) -> Tensor:
    """hardshrink of self (torch.nn.functional.hardshrink)."""
    return hardshrink(self, lambd)


Tensor.prelu, Tensor.hardshrink = _prelu_method, _hardshrink_method
