"""Unary elementwise math: exp/log families, trigonometric and hyperbolic functions,
rounding, special functions (erf, lgamma, digamma ...), and tests like isnan.

Most ops are one `unary(...)` line: a NumPy kernel plus its gradient rule.
"""
from __future__ import annotations

import functools
import math

import ml_dtypes
import numpy as np

from ..._tensor import Tensor, is_inference_tensor
from ...autograd.function import Function
from ..._modes import current as modes
from .. import _special_math as special
from .._nondifferentiable import nondifferentiable, run
from ..indexing import _named
from ._common import _unsupported, _with_out, _zeros_like, check_limited, float_math, to_float
from .where import where

_DIFFERENTIABLE = [
    "exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt", "rsqrt", "reciprocal",
    "tanh", "sigmoid", "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh", "asinh",
    "acosh", "atanh", "arcsin", "arccos", "arctan", "arcsinh", "arccosh", "arctanh", "abs",
    "absolute", "sign", "sgn", "floor", "ceil", "trunc", "fix", "round", "frac", "erf", "erfc",
    "erfinv", "lgamma", "digamma", "polygamma", "sinc", "deg2rad", "rad2deg", "relu", "logit",
    "nan_to_num", "i0"]
METHODS = _DIFFERENTIABLE + [
    "conj", "conj_physical", "resolve_conj", "resolve_neg", "angle", "positive", "isnan",
    "isinf", "isfinite", "isposinf", "isneginf", "isreal", "signbit", "is_nonzero",
    "is_same_size", "is_conj", "is_neg", "is_inference"]
# sqrt_ has a direct path in pointwise.binary; polygamma takes n first, unlike the others,
# so its methods are bound in pointwise/__init__.py.
INPLACE = [n for n in _DIFFERENTIABLE if n not in ("sqrt", "polygamma")]
__all__ = METHODS + ["real", "imag"]
METHODS = [n for n in METHODS if n != "polygamma"]


def _zero_grad(g, x):
    return _zeros_like(g)


@functools.lru_cache(maxsize=64)
def _zero_row(dtype: np.dtype, length: int) -> np.ndarray:
    row = np.zeros(length, dtype)
    row.flags.writeable = False
    return row


def relu_array(a: np.ndarray) -> np.ndarray:
    """max(a, 0) in a's dtype. NumPy's maximum against a scalar runs 2-3x slower than
    against a row of zeros broadcast over the other axes (only the latter takes its
    vectorised loop)."""
    if a.ndim == 0 or a.shape[-1] == 0:
        return np.maximum(a, a.dtype.type(0))
    return np.maximum(a, _zero_row(a.dtype, a.shape[-1]))


def unary(name: str, np_fn, grad=None, grad_from_output=None, ints: str = "float",
          backward_name: str | None = None, kernel: str | None = None,
          holomorphic: bool = True):
    """Build an elementwise op and its Function from a NumPy function and a gradient rule.

    grad(g, x) uses the input; grad_from_output(g, y) uses the result (then only the
    result is kept for backward). Ops without either are not differentiable.
    ints says what integer and bool inputs do: "float" (computed in the default float
    dtype), "keep" (np_fn applied to them as they are), "same" (returned unchanged, as
    floor does) or "error" (torch has no integer kernel: NotImplementedError).
    holomorphic: the gradient rule is the complex derivative (see Function.holomorphic);
    False for rules already written in torch's complex convention (abs).
    """
    uses_output = grad_from_output is not None
    op_name = name.lower()
    kernel = kernel or op_name + "_cpu"

    def forward(ctx, x):
        data = x
        if data.dtype.kind in "biu":
            if ints == "error" or (ints == "same" and data.dtype.kind == "b"):
                raise _unsupported(kernel, data.dtype)
            if ints == "same":
                return data.copy()
            if ints == "keep":
                check_limited(data.dtype, op_name, kernel)
            if ints == "float":
                data = to_float(x)
        if not uses_output and grad is not None:
            ctx.save_for_backward(x)
        with np.errstate(all="ignore"):
            return float_math(np_fn, data) if data.dtype.kind in "fV" else np_fn(data)

    def backward(ctx, g):
        if uses_output:
            return grad_from_output(g, ctx.output(0))
        return grad(g, ctx._unpacked_saved[0])

    cls = type(name, (Function,), {
        "backward_name": backward_name or name + "Backward0",
        "holomorphic": holomorphic,
        "saves_outputs": uses_output,
        "saved_names": () if uses_output else ("self",),
        "forward": staticmethod(forward),
        "backward": staticmethod(backward),
    })

    def op(input: Tensor, *, out=None) -> Tensor:
        return _with_out(cls.apply(input), out)

    op.__name__ = op.__qualname__ = op_name
    op.__doc__ = f"Elementwise {op_name} (torch.{op_name})."
    op.Function = cls
    return op


def _in_float64(fn):
    """Run a float64 kernel from _special_math on any float dtype, rounding back."""
    return lambda a: fn(a.astype(np.float64)).astype(a.dtype)


_LN2, _LN10 = math.log(2.0), math.log(10.0)

exp = unary("Exp", np.exp, grad_from_output=lambda g, y: g * y)
exp2 = unary("Exp2", np.exp2, grad_from_output=lambda g, y: g * y * _LN2)
expm1 = unary("Expm1", np.expm1, grad_from_output=lambda g, y: g * (y + 1))
log = unary("Log", np.log, grad=lambda g, x: g / x)
log2 = unary("Log2", np.log2, grad=lambda g, x: g / (x * _LN2))
log10 = unary("Log10", np.log10, grad=lambda g, x: g / (x * _LN10))
log1p = unary("Log1p", np.log1p, grad=lambda g, x: g / (x + 1), backward_name="Log1PBackward0")
sqrt = unary("Sqrt", np.sqrt, grad_from_output=lambda g, y: g / (2 * y))
rsqrt = unary("Rsqrt", lambda a: 1 / np.sqrt(a), grad_from_output=lambda g, y: -0.5 * g * y ** 3)
reciprocal = unary("Reciprocal", np.reciprocal, grad_from_output=lambda g, y: -g * y * y)
tanh = unary("Tanh", np.tanh, grad_from_output=lambda g, y: g * (1 - y * y))
sigmoid = unary("Sigmoid", lambda a: 0.5 * np.tanh(0.5 * a) + 0.5,
                grad_from_output=lambda g, y: g * y * (1 - y))
sin = unary("Sin", np.sin, grad=lambda g, x: g * x.cos())
cos = unary("Cos", np.cos, grad=lambda g, x: -g * x.sin())
tan = unary("Tan", np.tan, grad_from_output=lambda g, y: g * (1 + y * y))
asin = unary("Asin", np.arcsin, grad=lambda g, x: g * (1 - x * x).rsqrt())
acos = unary("Acos", np.arccos, grad=lambda g, x: -g * (1 - x * x).rsqrt())
atan = unary("Atan", np.arctan, grad=lambda g, x: g / (x * x + 1))
sinh = unary("Sinh", np.sinh, grad=lambda g, x: g * x.cosh())
cosh = unary("Cosh", np.cosh, grad=lambda g, x: g * x.sinh())
asinh = unary("Asinh", np.arcsinh, grad=lambda g, x: g * (x * x + 1).rsqrt())
acosh = unary("Acosh", np.arccosh, grad=lambda g, x: g * (x * x - 1).rsqrt())
atanh = unary("Atanh", np.arctanh, grad=lambda g, x: g / (1 - x * x))
abs = unary("Abs", np.abs, grad=lambda g, x: g * x.sign(), ints="keep", holomorphic=False)
# torch's sign(nan) is 0
sign = unary("Sign", lambda a: a.copy() if a.dtype.kind == "b" else
             np.nan_to_num(np.sign(a), nan=0.0), grad=_zero_grad, ints="keep")
floor = unary("Floor", np.floor, grad=_zero_grad, ints="same", kernel="floor_vml_cpu")
ceil = unary("Ceil", np.ceil, grad=_zero_grad, ints="same", kernel="ceil_vml_cpu")
trunc = unary("Trunc", np.trunc, grad=_zero_grad, ints="same", kernel="trunc_vml_cpu")
frac = unary("Frac", lambda a: a - np.trunc(a), grad=lambda g, x: g, ints="error")
erf = unary("Erf", _in_float64(special.erf),
            grad=lambda g, x: g * (2 / math.sqrt(math.pi)) * (-x * x).exp())
erfc = unary("Erfc", _in_float64(special.erfc),
             grad=lambda g, x: g * (-2 / math.sqrt(math.pi)) * (-x * x).exp())
erfinv = unary("Erfinv", _in_float64(special.erfinv),
               grad_from_output=lambda g, y: g * (math.sqrt(math.pi) / 2) * (y * y).exp())
lgamma = unary("Lgamma", _in_float64(special.lgamma), grad=lambda g, x: g * x.digamma())
digamma = unary("Digamma", _in_float64(special.digamma),
                grad=lambda g, x: g * polygamma(1, x))
sinc = unary("Sinc", np.sinc, grad=lambda g, x: g * _sinc_slope(x))
deg2rad = unary("Deg2Rad", np.deg2rad, grad=lambda g, x: g * (math.pi / 180))
rad2deg = unary("Rad2Deg", np.rad2deg, grad=lambda g, x: g * (180 / math.pi))
relu = unary("Relu", relu_array,
             grad_from_output=lambda g, y: where(y <= 0, 0.0, g), ints="keep",
             kernel="clamp_min_scalar_cpu")
arcsin, arccos, arctan, arcsinh, arccosh, arctanh = asin, acos, atan, asinh, acosh, atanh
fix, absolute = trunc, abs


def _bessel_i1(x: np.ndarray) -> np.ndarray:
    """The modified Bessel function I1, from the exponentially scaled kernel (float64)."""
    with np.errstate(over="ignore", invalid="ignore"):
        return np.exp(np.abs(x)) * special.bessel_i_scaled(x, 1)


def _i1_slope(x: Tensor) -> Tensor:
    """d/dx I1(x) = I0(x) - I1(x) / x, which tends to 1/2 at x = 0."""
    return where(x == 0, 0.5, i0(x) - _i1(x) / x)


i0 = unary("I0", lambda a: np.i0(a).astype(a.dtype), grad=lambda g, x: g * _i1(x))
_i1 = unary("I1", _in_float64(_bessel_i1), grad=lambda g, x: g * _i1_slope(x),
            backward_name="SpecialI1Backward0")


def _sinc_slope(x: Tensor) -> Tensor:
    """d/dx sin(pi x) / (pi x): (cos(pi x) pi x - sin(pi x)) / (pi x^2), 0 at x = 0."""
    px = x * math.pi
    return where(x == 0, 0.0, (px * px.cos() - px.sin()) / (px * x))


def _polygamma_kernel(n: int):
    """psi^(n) for n >= 1: trigamma's own kernel, else (-1)^(n+1) n! zeta(n + 1, x)."""
    if n == 1:
        return special.trigamma
    scale = (-1) ** (n + 1) * math.factorial(n)
    return lambda x: scale * special.zeta(np.full_like(x, n + 1.0), x)


@functools.lru_cache(maxsize=None)
def _polygamma_op(n: int):
    """The op computing psi^(n) (n >= 1); its derivative is psi^(n + 1)."""
    return unary("Polygamma", _in_float64(_polygamma_kernel(n)),
                 grad=lambda g, x: g * polygamma(n + 1, x), backward_name="PolygammaBackward0")


def polygamma(n: int, input: Tensor, *, out=None) -> Tensor:
    """psi^(n), the n-th derivative of digamma (n = 0: digamma itself)."""
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    return digamma(input, out=out) if n == 0 else _polygamma_op(n)(input, out=out)


def sgn(input: Tensor, *, out=None) -> Tensor:
    """sign for real tensors; z / |z| (0 at 0) for complex ones."""
    if not input.is_complex():
        return _named(sign(input, out=out), "SgnBackward0")
    magnitude = abs(input)
    return _with_out(where(magnitude == 0, 0, input / magnitude), out)


class Round(Function):
    backward_name = "RoundBackward0"

    @staticmethod
    def forward(ctx, x, decimals):
        if x.dtype.kind in "biu":
            if decimals or x.dtype.kind == "b":
                raise _unsupported("round_cpu", x.dtype)
            return x.copy()
        return float_math(np.round, x, decimals)

    @staticmethod
    def backward(ctx, grad):
        return _zeros_like(grad), None


def round(input: Tensor, *, decimals: int = 0, out=None) -> Tensor:
    """Round half to even; with decimals, to that many digits after the point."""
    result = Round.apply(input, decimals)
    return _with_out(_named(result, "RoundBackward1") if decimals else result, out)


class Logit(Function):
    backward_name = "LogitBackward0"

    @staticmethod
    def forward(ctx, x, eps):
        ctx.save_for_backward(x)
        ctx.eps = eps
        data = to_float(x)
        if eps is not None:
            data = float_math(np.clip, data, eps, 1 - eps)
        with np.errstate(all="ignore"):
            return float_math(lambda a: np.log(a / (1 - a)), data)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx._unpacked_saved
        g = grad / (x * (1 - x))
        if ctx.eps is None:     # outside [0, 1] logit is undefined: nan, as in torch
            return where((x < 0) | (x > 1), math.nan, g), None
        return where((x < ctx.eps) | (x > 1 - ctx.eps), 0.0, g), None


def logit(input: Tensor, eps: float | None = None, *, out=None) -> Tensor:
    """log(p / (1 - p)), elementwise; with eps, p is first clamped into [eps, 1 - eps]."""
    return _with_out(Logit.apply(input, eps), out)


class NanToNum(Function):
    backward_name = "NanToNumBackward0"

    @staticmethod
    def forward(ctx, x, nan, posinf, neginf):
        if x.dtype.kind in "biu":
            return x.copy()
        ctx.save_for_backward(x)
        info = ml_dtypes.finfo(x.dtype)
        out = np.where(np.isnan(x), nan, x)
        out = np.where(out == np.inf, info.max if posinf is None else posinf, out)
        return np.where(out == -np.inf, info.min if neginf is None else neginf,
                        out).astype(x.dtype)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx._unpacked_saved
        return grad * isfinite(x), None, None, None


def nan_to_num(input: Tensor, nan: float = 0.0, posinf: float | None = None,
               neginf: float | None = None, *, out=None) -> Tensor:
    """Copy of input with NaN replaced by `nan`, and +inf / -inf by posinf / neginf (by default the
    dtype's largest and smallest finite values)."""
    return _with_out(NanToNum.apply(input, nan, posinf, neginf), out)


def positive(input: Tensor) -> Tensor:
    """input itself (unary plus); refuses bool tensors."""
    if input._data.dtype.kind == "b":
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return input


def _part(input: Tensor, index: int) -> Tensor:
    """input's real (index 0) or imaginary (1) part as a view; differentiable as torch's:
    a select of view_as_real, so a gradient g of the part reaches input as g or i g."""
    if input._requires_grad and modes().grad_enabled:
        from ..complex import view_as_real    # complex builds on this module
        return view_as_real(input).select(-1, index)
    return input._make_view(input._data.imag if index else input._data.real)


def real(input: Tensor) -> Tensor:
    """The real part of a complex tensor, as a view (a real tensor is returned as is)."""
    if not input.is_complex():
        return input
    return _part(input, 0)


def imag(input: Tensor) -> Tensor:
    """The imaginary part of a complex tensor, as a view (a real tensor raises)."""
    if not input.is_complex():
        raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")
    return _part(input, 1)


class Conj(Function):
    """Complex conjugate (a copy: ember has no lazy conjugate bit)."""
    backward_name = "ConjBackward0"

    @staticmethod
    def forward(ctx, x):
        return np.conj(x)

    @staticmethod
    def backward(ctx, grad):
        return grad.conj()


def conj(input: Tensor) -> Tensor:
    """The complex conjugate of input (real tensors are returned unchanged)."""
    if not input.is_complex():
        return input
    return Conj.apply(input)


def conj_physical(input: Tensor) -> Tensor:
    """The complex conjugate of input, computed into new memory."""
    return conj(input)


def resolve_conj(input: Tensor) -> Tensor:
    """ember never defers a conjugation, so there is nothing to resolve."""
    return input


resolve_neg = resolve_conj


def _real_angle(a: np.ndarray) -> np.ndarray:
    return np.where(a < 0, np.pi, np.where(np.isnan(a), a, 0)).astype(a.dtype)


_real_angle_op = unary("Angle", _real_angle, grad=_zero_grad)


def angle(input: Tensor, *, out=None) -> Tensor:
    """Argument of each element: pi for negative reals, 0 for the others."""
    if input.is_complex():
        if input._requires_grad and modes().grad_enabled:
            from .binary import atan2     # binary builds on this module
            return _with_out(_named(atan2(imag(input), real(input)), "AngleBackward0"), out)
        return _with_out(Tensor._wrap(np.angle(input._data)), out)
    return _real_angle_op(input, out=out)


def _predicate(name: str, fn):
    """A non-differentiable elementwise test returning a bool tensor."""
    function = nondifferentiable(name, lambda x: fn(x._data))

    def op(input: Tensor) -> Tensor:
        return run(function, input)
    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"Elementwise {name} test; the result is a bool tensor."
    op.Function = function      # the Function recorders see
    return op


isnan = _predicate("isnan", np.isnan)
isinf = _predicate("isinf", np.isinf)
isfinite = _predicate("isfinite", np.isfinite)
isposinf = _predicate("isposinf", lambda a: a == np.inf)
isneginf = _predicate("isneginf", lambda a: a == -np.inf)
isreal = _predicate("isreal", lambda a: np.imag(a) == 0 if a.dtype.kind == "c"
                    else np.ones(a.shape, dtype=bool))
signbit = _predicate("signbit", lambda a: np.signbit(a) if a.dtype.kind in "fV" else a < 0)


def is_nonzero(input: Tensor) -> bool:
    """The truth value of a one-element tensor (torch's errors for any other size)."""
    return bool(input)


def is_same_size(input: Tensor, other: Tensor) -> bool:
    """Whether input and other have the same shape."""
    return input.shape == other.shape


def is_conj(input: Tensor) -> bool:
    """Always False: ember conjugates eagerly, never through a lazy conjugate bit."""
    return False


def is_neg(input: Tensor) -> bool:
    """Always False: ember negates eagerly, never through a lazy negative bit."""
    return False


def is_inference(input: Tensor) -> bool:
    """Whether input was made under inference_mode (or is a view of a tensor that was)."""
    return is_inference_tensor(input)
