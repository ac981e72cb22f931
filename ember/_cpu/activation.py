"""Activation kernels on NumPy arrays: the reference implementation of the `activation`
kernel family (ember/_cpu/numba/activation.py compiles the same functions).

Contract shared by every function:
- `x` (and `grad`, `y`) are float arrays of one shape and dtype, float32 or float64
  (callers compute 16-bit floats in float32); parameters are Python numbers.
- A forward function returns f(x), a backward function grad * f'(x); both as a new
  array of x's shape and dtype. ELU's backward takes the forward's output `y` instead of
  x, as torch's does.
- Infinities and NaN give what torch's CPU kernels give (the formulas are torch's).

GELU's normal CDF in float32 comes from Abramowitz & Stegun's formula 7.1.26 for erfc
(absolute error below 1.5e-7; torch's vectorised CPU kernel uses the same formula), a
dozen float32 passes; float64 uses the Cephes erf of erf.py, accurate to 1e-15.
"""
from __future__ import annotations

import functools
import math

import numpy as np

from . import buffers
from .erf import erf
from .mask import zero_unless
from .scratch import ThreadScratch

SQRT_HALF = math.sqrt(0.5)
INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
GELU_TANH_SCALE = math.sqrt(2.0 / math.pi)     # tanh form: tanh(scale (x + c x^3))
GELU_TANH_CUBIC = 0.044715

# Abramowitz & Stegun 7.1.26: erfc(z) = t P(t) exp(-z^2) with t = 1 / (1 + p z), z >= 0.
ERFC_P = 0.3275911
ERFC_COEFFICIENTS = (1.061405429, -1.453152027, 1.421413741, -0.284496736, 0.254829592)
HALF_ERFC_COEFFICIENTS = tuple(c / 2 for c in ERFC_COEFFICIENTS)
ONE_SIXTH_FLOAT32 = float(np.float32(1 / 6))

# GELU's full-size temporaries are lent per thread (see scratch.py): fresh 1.5 MB arrays
# cost page faults; inside nanoGPT's step the forward took 4.8-5.3 ms with these buffers
# against 6.1-6.8 ms with fresh temporaries (backward 4.2-4.3 against 5.0-6.9).
_SCRATCH = ThreadScratch()
_T, _GAUSSIAN = 0, 1


def _elementwise(kernel):
    """Let a kernel written as in-place NumPy passes take 0-d arrays too: it runs on
    one-element views of them (NumPy's ufuncs give scalars, not arrays, for 0-d input)."""
    @functools.wraps(kernel)
    def run(*args):
        if args[0].ndim:
            return kernel(*args)
        flat = [a.reshape(1) if isinstance(a, np.ndarray) else a for a in args]
        return kernel(*flat).reshape(())
    return run


def _horner_into(t: np.ndarray, coefs, out: np.ndarray) -> np.ndarray:
    """out = t * sum(c t^k) (no constant term), `coefs` highest power first."""
    np.multiply(t, coefs[0], out=out)
    for c in coefs[1:]:
        out += c
        out *= t
    return out


def _cdf_and_gaussian(x: np.ndarray, cdf: np.ndarray, gaussian: np.ndarray) -> None:
    """Write Phi(x), the standard normal CDF, into `cdf` and exp(-x^2 / 2) (sqrt(2 pi)
    times its density) into `gaussian`, arrays like x."""
    np.square(x, out=gaussian)
    gaussian *= -0.5
    np.exp(gaussian, out=gaussian)
    if x.dtype == np.float64:
        cdf[...] = erf(x * SQRT_HALF)
        cdf += 1.0
        cdf *= 0.5
        return
    # Q = erfc(|x| / sqrt 2) / 2, then Phi(x) = 1/2 + sign(x) (1/2 - Q).
    with _SCRATCH.lend(x.shape, x.dtype, _T) as t:
        np.abs(x, out=t)
        t *= ERFC_P * SQRT_HALF
        t += 1.0
        np.reciprocal(t, out=t)
        _horner_into(t, HALF_ERFC_COEFFICIENTS, out=cdf)
    cdf *= gaussian
    np.subtract(0.5, cdf, out=cdf)
    np.copysign(cdf, x, out=cdf)
    cdf += 0.5


@_elementwise
def normal_cdf(x: np.ndarray) -> np.ndarray:
    """Phi(x), the standard normal CDF (1 + erf(x / sqrt 2)) / 2."""
    cdf = np.empty_like(x)
    with np.errstate(over="ignore", invalid="ignore"), \
            _SCRATCH.lend(x.shape, x.dtype, _GAUSSIAN) as gaussian:
        _cdf_and_gaussian(x, cdf, gaussian)
    return cdf


def _tanh_form_sigmoid(x: np.ndarray, out: np.ndarray) -> np.ndarray:
    """out = sigmoid(2u) = (1 + tanh(u)) / 2 with u = sqrt(2/pi) (x + 0.044715 x^3),
    written as 1 / (1 + exp(-2u)), which never cancels."""
    np.square(x, out=out)
    out *= GELU_TANH_CUBIC
    out += 1.0
    out *= x
    out *= -2.0 * GELU_TANH_SCALE
    np.exp(out, out=out)
    out += 1.0
    return np.reciprocal(out, out=out)


@_elementwise
def gelu(x: np.ndarray, approximate: str) -> np.ndarray:
    """x * Phi(x) (approximate='none'), or x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) / 2
    (approximate='tanh')."""
    y = np.empty_like(x)
    with np.errstate(over="ignore", invalid="ignore"):
        if approximate == "tanh":
            _tanh_form_sigmoid(x, out=y)
        else:
            with _SCRATCH.lend(x.shape, x.dtype, _GAUSSIAN) as gaussian:
                _cdf_and_gaussian(x, y, gaussian)
    y *= x
    return y


@_elementwise
def gelu_backward(grad: np.ndarray, x: np.ndarray, approximate: str) -> np.ndarray:
    """grad * GELU'(x): Phi(x) + x phi(x), or for the tanh form s + 2 x s (1 - s) u'
    with s = sigmoid(2u) and u' = sqrt(2/pi) (1 + 3 * 0.044715 x^2)."""
    slope = np.empty_like(x)
    with np.errstate(over="ignore", invalid="ignore"):
        if approximate == "tanh":
            with _SCRATCH.lend(x.shape, x.dtype, _GAUSSIAN) as s:
                _tanh_form_sigmoid(x, out=s)
                np.square(x, out=slope)                  # becomes 2 x u' s (1 - s) + s
                slope *= 3.0 * GELU_TANH_CUBIC
                slope += 1.0
                slope *= 2.0 * GELU_TANH_SCALE
                slope *= x
                slope *= s
                np.subtract(1.0, s, out=s)               # s now holds 1 - s
                slope *= s
                slope += 1.0
                slope -= s
        else:
            with _SCRATCH.lend(x.shape, x.dtype, _GAUSSIAN) as gaussian:
                _cdf_and_gaussian(x, slope, gaussian)
                gaussian *= x
                gaussian *= INV_SQRT_2PI
                slope += gaussian
    slope *= grad
    return slope


def gelu_with_slope(x: np.ndarray, approximate: str):
    """(gelu(x), GELU'(x)) from one evaluation of Phi(x) and exp(-x^2 / 2), for a forward
    whose backward will follow: the backward is then grad * slope, bit for bit what
    gelu_backward gives. None where the family recomputes in the backward instead (the
    tanh form, 0-d input). In nanoGPT's (12, 64, 512) float32 MLP the backward's erf
    passes cost 2.5 ms a layer; keeping the slope costs one array of x's size."""
    if approximate == "tanh" or x.ndim == 0:
        return None
    y, slope = buffers.empty_like(x), buffers.empty_like(x)
    with np.errstate(over="ignore", invalid="ignore"), \
            _SCRATCH.lend(x.shape, x.dtype, _GAUSSIAN) as gaussian:
        _cdf_and_gaussian(x, y, gaussian)
        np.multiply(gaussian, x, out=slope)         # the order of gelu_backward's passes
        slope *= INV_SQRT_2PI
        slope += y
    y *= x
    return y, slope


def _sigmoid(z: np.ndarray) -> np.ndarray:
    """1 / (1 + exp(-z)) as a new array; saturates to 0 or 1 without warnings."""
    s = np.negative(z)
    np.exp(s, out=s)
    s += 1.0
    return np.reciprocal(s, out=s)


@_elementwise
def silu(x: np.ndarray) -> np.ndarray:
    """x * sigmoid(x), as x / (1 + exp(-x))."""
    with np.errstate(over="ignore", invalid="ignore"):
        y = np.negative(x)
        np.exp(y, out=y)
        y += 1.0
        return np.divide(x, y, out=y)


@_elementwise
def silu_backward(grad: np.ndarray, x: np.ndarray) -> np.ndarray:
    """grad * s (1 + x (1 - s)) with s = sigmoid(x)."""
    with np.errstate(over="ignore", invalid="ignore"):
        s = _sigmoid(x)
        slope = 1.0 - s
        slope *= x
        slope += 1.0
        slope *= s
        slope *= grad
        return slope


def _tanh_softplus(x: np.ndarray) -> np.ndarray:
    """tanh(log(1 + exp(x))) as a new array."""
    t = np.exp(x)
    np.log1p(t, out=t)
    return np.tanh(t, out=t)


@_elementwise
def mish(x: np.ndarray) -> np.ndarray:
    """x * tanh(softplus(x))."""
    with np.errstate(over="ignore", invalid="ignore"):
        y = _tanh_softplus(x)
        y *= x
        return y


@_elementwise
def mish_backward(grad: np.ndarray, x: np.ndarray) -> np.ndarray:
    """grad * (t + x sigmoid(x) (1 - t^2)) with t = tanh(softplus(x))."""
    with np.errstate(over="ignore", invalid="ignore"):
        t = _tanh_softplus(x)
        slope = np.square(t)
        np.subtract(1.0, slope, out=slope)
        slope *= _sigmoid(x)
        slope *= x
        slope += t
        slope *= grad
        return slope


@_elementwise
def softplus(x: np.ndarray, beta: float, threshold: float) -> np.ndarray:
    """log(1 + exp(beta x)) / beta, and x itself where beta x > threshold."""
    with np.errstate(over="ignore", invalid="ignore"):
        z = x * beta
        y = np.exp(z)
        np.log1p(y, out=y)
        y /= beta
        return np.where(z > threshold, x, y)


@_elementwise
def softplus_backward(grad: np.ndarray, x: np.ndarray, beta: float,
                      threshold: float) -> np.ndarray:
    """grad * e / (e + 1) with e = exp(beta x), and grad where beta x > threshold."""
    with np.errstate(over="ignore", invalid="ignore"):
        z = x * beta
        e = np.exp(z)
        slope = e + 1.0
        np.divide(e, slope, out=slope)
        slope *= grad
        return np.where(z > threshold, grad, slope)


@_elementwise
def elu(x: np.ndarray, alpha: float, scale: float, input_scale: float) -> np.ndarray:
    """scale * x for x > 0, else scale * alpha * (exp(input_scale * x) - 1): ELU, and SELU
    and CELU with their scales."""
    with np.errstate(over="ignore", invalid="ignore"):
        negative = np.minimum(x, 0)
        negative *= input_scale
        np.expm1(negative, out=negative)
        negative *= alpha * scale
        return np.where(x > 0, x * scale, negative)


@_elementwise
def elu_backward(grad: np.ndarray, y: np.ndarray, alpha: float, scale: float,
                 input_scale: float) -> np.ndarray:
    """grad * ELU'(x) from the output y: scale where y > 0, else
    input_scale (y + scale alpha)."""
    slope = y + scale * alpha
    slope *= input_scale
    slope = np.where(y > 0, y.dtype.type(scale), slope)
    slope *= grad
    return slope


@_elementwise
def relu_backward(grad: np.ndarray, y: np.ndarray) -> np.ndarray:
    """grad where the output y is not <= 0, +0 elsewhere (torch's threshold_backward: a
    NaN output passes its gradient, an infinite gradient at y <= 0 gives 0)."""
    keep = np.less_equal(y, 0)
    np.logical_not(keep, out=keep)
    return zero_unless(grad, keep)


@_elementwise
def logsigmoid(x: np.ndarray) -> np.ndarray:
    """log(sigmoid(x)) = -log(1 + exp(-x)), without overflow."""
    with np.errstate(invalid="ignore"):
        y = np.logaddexp(0, -x)
        return np.negative(y, out=y)


@_elementwise
def logsigmoid_backward(grad: np.ndarray, x: np.ndarray) -> np.ndarray:
    """grad * sigmoid(-x)."""
    with np.errstate(over="ignore"):
        slope = _sigmoid(-x)
        slope *= grad
        return slope


@_elementwise
def hardsigmoid(x: np.ndarray) -> np.ndarray:
    """min(max(x + 3, 0), 6) / 6."""
    y = x + 3
    np.clip(y, 0, 6, out=y)
    y /= 6
    return y


@_elementwise
def hardsigmoid_backward(grad: np.ndarray, x: np.ndarray) -> np.ndarray:
    """grad / 6 where -3 < x < 3, +0 elsewhere (1/6 rounded to float32 as torch's kernel
    has it, for float64 too)."""
    return np.where((x > -3) & (x < 3), grad * ONE_SIXTH_FLOAT32, x.dtype.type(0))


@_elementwise
def hardswish(x: np.ndarray) -> np.ndarray:
    """x * min(max(x + 3, 0), 6) / 6."""
    y = x + 3
    np.clip(y, 0, 6, out=y)
    with np.errstate(invalid="ignore"):       # -inf * 0
        y *= x
    y /= 6
    return y


@_elementwise
def hardswish_backward(grad: np.ndarray, x: np.ndarray) -> np.ndarray:
    """grad * (x / 3 + 1/2) for -3 < x < 3, grad from 3 up, +0 up to -3."""
    middle = x / 3
    middle += 0.5
    middle *= grad
    return np.where(x <= -3, x.dtype.type(0), np.where(x >= 3, grad, middle))
