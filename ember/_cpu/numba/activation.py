"""numba twin of ember/_cpu/activation.py: the same functions and contracts, each one
pass over the elements (the NumPy versions make 5 to 25), split over the BLAS threads by
parallel_for.

Every exponential is exp of a non-positive argument (`shifted_exp`, which LLVM
vectorises; libm's exp, expm1 and log1p would be called one element at a time):
sigmoids are written 1 / (1 + e) or e / (1 + e) with e = exp(-|z|), softplus and
log-sigmoid as max(z, 0) + log1p(e) with log1p from its atanh series, ELU's expm1 as a
Taylor polynomial near 0. float32 GELU takes its normal CDF from Abramowitz & Stegun
7.1.26 as the NumPy version does, float64 from libm's erf. Results agree with the NumPy
versions to a few ulps (other but equally exact formulas, a different evaluation order,
fused multiply-adds).

The comment in each function gives its speed-up over the NumPy version on (12, 64, 512)
float32 (nanoGPT's MLP activation), one thread, range of two runs on the shared 2-core
machine; the backward figures include the NumPy version's allocations of temporaries.
"""
from __future__ import annotations

import math

import numpy as np
from numba import types
from numba.extending import overload, register_jitable

from .. import activation as reference
from .. import buffers
from ..parallel import parallel_for, split, threads
from ..tuning import MIN_PARALLEL_VALUES
from ._common import compiled, jit
from ._exp import shifted_exp

normal_cdf = reference.normal_cdf          # create_graph only

# Loops may fuse a multiply and an add into one FMA instruction (as torch's vectorised
# kernels do): one rounding instead of two, so results can differ from the NumPy
# versions in the last bit. 1.6x faster GELU.
_loop = jit(fastmath={"contract"})

_F32 = np.float32
_HALF_ERFC = tuple(_F32(c) for c in reference.HALF_ERFC_COEFFICIENTS)
_ERFC_SLOPE = _F32(reference.ERFC_P * reference.SQRT_HALF)


@register_jitable
def _cdf32(v, gaussian):
    t = _F32(1.0) / (_F32(1.0) + _ERFC_SLOPE * abs(v))
    tail = t * (_HALF_ERFC[4] + t * (_HALF_ERFC[3] + t * (_HALF_ERFC[2] + t * (
        _HALF_ERFC[1] + t * _HALF_ERFC[0])))) * gaussian
    return _F32(1.0) - tail if v > 0 else tail


@register_jitable
def _cdf64(v, gaussian):
    return 0.5 * (1.0 + math.erf(v * reference.SQRT_HALF))


def _normal_cdf(v, gaussian):
    """Phi(v) given gaussian = exp(-v^2 / 2) (compiled code only)."""
    raise NotImplementedError("_normal_cdf runs inside numba kernels only")


@overload(_normal_cdf)
def _normal_cdf_for(v, gaussian):
    if v == types.float32:
        return _cdf32
    if v == types.float64:
        return _cdf64
    return None


# expm1(x) = sum of x^k / k! and log1p(e) = 2 atanh(s) = sum of 2 s^(2k+1) / (2k + 1) with
# s = e / (2 + e) <= 1/3: as many terms as each precision needs on the ranges used below
# (|x| <= ln 2, 0 <= e <= 1), highest power first.
_EXPM1_32 = tuple(_F32(1 / math.factorial(k)) for k in range(10, 0, -1))
_EXPM1_64 = tuple(1 / math.factorial(k) for k in range(17, 0, -1))
_ATANH_32 = tuple(_F32(2 / (2 * k + 1)) for k in range(7, -1, -1))
_ATANH_64 = tuple(2 / (2 * k + 1) for k in range(16, -1, -1))
_LN_HALF = math.log(0.5)


@register_jitable
def _horner(x, coefs):
    result = coefs[0]
    for c in coefs[1:]:
        result = result * x + c
    return result


def _expm1(x):
    """exp(x) - 1 for x <= 0 (compiled code only): a Taylor polynomial where the
    subtraction would cancel (x > ln 1/2), exp(x) - 1 below."""
    raise NotImplementedError("_expm1 runs inside numba kernels only")


def _log1p(e):
    """log(1 + e) for 0 <= e <= 1 (compiled code only), by the atanh series."""
    raise NotImplementedError("_log1p runs inside numba kernels only")


@overload(_expm1)
def _expm1_for(x):
    if x not in (types.float32, types.float64):
        return None
    coefs = _EXPM1_32 if x == types.float32 else _EXPM1_64
    small = _F32(_LN_HALF) if x == types.float32 else _LN_HALF

    def expm1(x):
        return x * _horner(x, coefs) if x > small else shifted_exp(x) - 1
    return expm1


@overload(_log1p)
def _log1p_for(e):
    if e not in (types.float32, types.float64):
        return None
    coefs = _ATANH_32 if e == types.float32 else _ATANH_64

    def log1p(e):
        s = e / (e + 2)
        return s * _horner(s * s, coefs)
    return log1p


@register_jitable
def _sigmoid_pair(z):
    """(sigmoid(z), 1 - sigmoid(z)), both without cancellation."""
    e = shifted_exp(-abs(z))
    p = type(z)(1.0) / (type(z)(1.0) + e)
    return (p, e * p) if z >= 0 else (e * p, p)


@_loop
def _gelu(x, out):
    half = x.dtype.type(-0.5)
    for i in range(x.size):
        v = x[i]
        out[i] = v * _normal_cdf(v, shifted_exp(half * v * v))


@_loop
def _gelu_backward(grad, x, out):
    half = x.dtype.type(-0.5)
    density = x.dtype.type(reference.INV_SQRT_2PI)
    for i in range(x.size):
        v = x[i]
        gaussian = shifted_exp(half * v * v)
        out[i] = grad[i] * (_normal_cdf(v, gaussian) + v * gaussian * density)


@_loop
def _gelu_tanh(x, out):
    scale = x.dtype.type(2.0 * reference.GELU_TANH_SCALE)
    cubic = x.dtype.type(reference.GELU_TANH_CUBIC)
    for i in range(x.size):
        v = x[i]
        out[i] = v * _sigmoid_pair(scale * (v + cubic * v * v * v))[0]


@_loop
def _gelu_tanh_backward(grad, x, out):
    scale = x.dtype.type(2.0 * reference.GELU_TANH_SCALE)
    cubic = x.dtype.type(reference.GELU_TANH_CUBIC)
    three_cubic = x.dtype.type(3.0 * reference.GELU_TANH_CUBIC)
    for i in range(x.size):
        v = x[i]
        s, rest = _sigmoid_pair(scale * (v + cubic * v * v * v))
        slope = scale * (x.dtype.type(1.0) + three_cubic * v * v)
        out[i] = grad[i] * (s + v * slope * s * rest)


@_loop
def _silu(x, out):
    for i in range(x.size):
        out[i] = x[i] * _sigmoid_pair(x[i])[0]


@_loop
def _silu_backward(grad, x, out):
    one = x.dtype.type(1.0)
    for i in range(x.size):
        v = x[i]
        s, rest = _sigmoid_pair(v)
        out[i] = grad[i] * s * (one + v * rest)


@register_jitable
def _tanh_softplus(v):
    """tanh(log(1 + exp(v))) = n / (n + 2) with n = exp(v) (exp(v) + 2), from e = exp(-|v|)."""
    one, two = type(v)(1.0), type(v)(2.0)
    e = shifted_exp(-abs(v))
    if v >= 0:
        return (one + two * e) / (one + two * e + two * e * e)
    n = e * (e + two)
    return n / (n + two)


@_loop
def _mish(x, out):
    for i in range(x.size):
        out[i] = x[i] * _tanh_softplus(x[i])


@_loop
def _mish_backward(grad, x, out):
    one = x.dtype.type(1.0)
    for i in range(x.size):
        v = x[i]
        t = _tanh_softplus(v)
        out[i] = grad[i] * (t + v * _sigmoid_pair(v)[0] * (one - t * t))


@_loop
def _softplus(x, out, beta, threshold):
    zero = x.dtype.type(0.0)
    for i in range(x.size):
        v = x[i]
        z = v * beta
        out[i] = v if z > threshold else (max(z, zero) + _log1p(shifted_exp(-abs(z)))) / beta


@_loop
def _softplus_backward(grad, x, out, beta, threshold):
    for i in range(x.size):
        z = x[i] * beta
        out[i] = grad[i] if z > threshold else grad[i] * _sigmoid_pair(z)[0]


@_loop
def _elu(x, out, alpha, scale, input_scale):
    negative = scale * alpha
    for i in range(x.size):
        v = x[i]
        out[i] = scale * v if v > 0 else negative * _expm1(v * input_scale)


@_loop
def _elu_backward(grad, y, out, alpha, scale, input_scale):
    negative = scale * alpha
    for i in range(y.size):
        v = y[i]
        out[i] = grad[i] * (scale if v > 0 else input_scale * (v + negative))


@_loop
def _logsigmoid(x, out):
    zero = x.dtype.type(0.0)
    for i in range(x.size):
        v = x[i]
        out[i] = min(v, zero) - _log1p(shifted_exp(-abs(v)))


@_loop
def _logsigmoid_backward(grad, x, out):
    for i in range(x.size):
        out[i] = grad[i] * _sigmoid_pair(-x[i])[0]


@_loop
def _relu_backward(grad, y, out):
    zero = y.dtype.type(0.0)
    for i in range(y.size):
        out[i] = zero if y[i] <= zero else grad[i]


@_loop
def _hardsigmoid(x, out):
    zero, three, six = x.dtype.type(0.0), x.dtype.type(3.0), x.dtype.type(6.0)
    for i in range(x.size):
        out[i] = min(max(x[i] + three, zero), six) / six


@_loop
def _hardsigmoid_backward(grad, x, out):
    three, zero = x.dtype.type(3.0), x.dtype.type(0.0)
    sixth = x.dtype.type(reference.ONE_SIXTH_FLOAT32)
    for i in range(x.size):
        v = x[i]
        out[i] = grad[i] * sixth if -three < v < three else zero


@_loop
def _hardswish(x, out):
    zero, three, six = x.dtype.type(0.0), x.dtype.type(3.0), x.dtype.type(6.0)
    for i in range(x.size):
        v = x[i]
        out[i] = v * min(max(v + three, zero), six) / six


@_loop
def _hardswish_backward(grad, x, out):
    zero, half, three = x.dtype.type(0.0), x.dtype.type(0.5), x.dtype.type(3.0)
    for i in range(x.size):
        v = x[i]
        if v <= -three:
            out[i] = zero
        elif v >= three:
            out[i] = grad[i]
        else:
            out[i] = grad[i] * (v / three + half)


def _run(fallback, loop, arrays: tuple, *params):
    """loop(*flat arrays, flat out, *params) on C-contiguous copies of `arrays` (one shape
    and dtype; the last is x), in pieces over the BLAS threads; returns out. params are
    converted to x's dtype so that float32 loops stay in float32. Arrays of a dtype the
    loops are not compiled for go to fallback(*arrays, *params), the NumPy version."""
    if not compiled(*arrays):
        return fallback(*arrays, *params)
    x = arrays[-1]
    flat = [np.ascontiguousarray(a).reshape(-1) for a in arrays]
    out = buffers.empty(x.shape, x.dtype)
    flat_out = out.reshape(-1)
    params = tuple(x.dtype.type(p) for p in params)
    size = flat_out.size
    pieces = split(size, threads()) if size >= MIN_PARALLEL_VALUES else [slice(0, size)]
    parallel_for(pieces, lambda s: loop(*[a[s] for a in flat], flat_out[s], *params),
                 size * len(arrays))
    return out


def gelu(x: np.ndarray, approximate: str) -> np.ndarray:
    # 6-8x (exact), 3-5x (tanh) faster
    return _run(lambda x: reference.gelu(x, approximate),
                _gelu_tanh if approximate == "tanh" else _gelu, (x,))


def gelu_backward(grad: np.ndarray, x: np.ndarray, approximate: str) -> np.ndarray:
    # 5-6x (exact), 4x (tanh) faster
    return _run(lambda grad, x: reference.gelu_backward(grad, x, approximate),
                _gelu_tanh_backward if approximate == "tanh" else _gelu_backward, (grad, x))


def gelu_with_slope(x: np.ndarray, approximate: str):
    # None: the compiled backward's one pass (0.29 ms on (12, 64, 512) float32) is about
    # what keeping the slope saves (grad * slope: 0.09 ms, plus its array's memory)
    return None


def silu(x: np.ndarray) -> np.ndarray:
    # 4-5x faster
    return _run(reference.silu, _silu, (x,))


def silu_backward(grad: np.ndarray, x: np.ndarray) -> np.ndarray:
    # 3-4x faster
    return _run(reference.silu_backward, _silu_backward, (grad, x))


def mish(x: np.ndarray) -> np.ndarray:
    # 20-24x faster
    return _run(reference.mish, _mish, (x,))


def mish_backward(grad: np.ndarray, x: np.ndarray) -> np.ndarray:
    # 22-23x faster
    return _run(reference.mish_backward, _mish_backward, (grad, x))


def softplus(x: np.ndarray, beta: float, threshold: float) -> np.ndarray:
    # 6.5-7x faster
    return _run(reference.softplus, _softplus, (x,), beta, threshold)


def softplus_backward(grad: np.ndarray, x: np.ndarray, beta: float,
                      threshold: float) -> np.ndarray:
    # 4.5-6x faster
    return _run(reference.softplus_backward, _softplus_backward, (grad, x), beta, threshold)


def elu(x: np.ndarray, alpha: float, scale: float, input_scale: float) -> np.ndarray:
    # 9-12x faster
    if input_scale < 0:             # CELU with alpha < 0: exp of x > 0, not in the loop
        return reference.elu(x, alpha, scale, input_scale)
    return _run(reference.elu, _elu, (x,), alpha, scale, input_scale)


def elu_backward(grad: np.ndarray, y: np.ndarray, alpha: float, scale: float,
                 input_scale: float) -> np.ndarray:
    # 17-21x faster
    return _run(reference.elu_backward, _elu_backward, (grad, y), alpha, scale, input_scale)


def relu_backward(grad: np.ndarray, y: np.ndarray) -> np.ndarray:
    # 4.5-6x faster
    return _run(reference.relu_backward, _relu_backward, (grad, y))


def logsigmoid(x: np.ndarray) -> np.ndarray:
    # 12-14x faster
    return _run(reference.logsigmoid, _logsigmoid, (x,))


def logsigmoid_backward(grad: np.ndarray, x: np.ndarray) -> np.ndarray:
    # 4-5x faster
    return _run(reference.logsigmoid_backward, _logsigmoid_backward, (grad, x))


def hardsigmoid(x: np.ndarray) -> np.ndarray:
    # 2-2.5x faster
    return _run(reference.hardsigmoid, _hardsigmoid, (x,))


def hardsigmoid_backward(grad: np.ndarray, x: np.ndarray) -> np.ndarray:
    # 11-14x faster
    return _run(reference.hardsigmoid_backward, _hardsigmoid_backward, (grad, x))


def hardswish(x: np.ndarray) -> np.ndarray:
    # 4-4.6x faster
    return _run(reference.hardswish, _hardswish, (x,))


def hardswish_backward(grad: np.ndarray, x: np.ndarray) -> np.ndarray:
    # 14-21x faster
    return _run(reference.hardswish_backward, _hardswish_backward, (grad, x))
