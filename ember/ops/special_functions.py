"""Special functions beyond the everyday unary math: the normal distribution's CDF, its
log and inverse, erfcx, the scaled Bessel functions i0e/i1e, entropy terms, the Hurwitz
zeta function, the regularized incomplete gamma functions, the multivariate log-gamma
function and the orthogonal polynomial families. torch.special exposes them all;
igamma, igammac and mvlgamma are also top-level torch functions and Tensor methods.

The kernels live in _special_math (float64 NumPy); the ops here add dtypes and gradients.
"""
from __future__ import annotations

import math

import numpy as np

from .. import _dtype
from .._tensor import Tensor
from . import _special_math as kernels
from .creation import arange
from .indexing import _named
from .pointwise import (_LOW_PRECISION, _float_result_type, _unsupported, _with_out,
                        data_of, where)
from .pointwise.binary import binary
from .pointwise.unary import _in_float64, erfc, lgamma, unary

METHODS = ["igamma", "igammac", "mvlgamma"]
INPLACE = ["igamma", "igammac", "mvlgamma"]
__all__ = ["igamma", "igammac", "mvlgamma"]

_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)


def refuse_16_bit(dtype: np.dtype, kernel: str) -> None:
    """torch's error for the kernels it has only in float32 and float64."""
    if dtype in _LOW_PRECISION:
        raise _unsupported(kernel, dtype)


def _no_16_bit(op, kernel: str):
    """op, refusing float16 and bfloat16 inputs."""
    def checked(input: Tensor, *, out=None) -> Tensor:
        refuse_16_bit(input._data.dtype, kernel)
        return op(input, out=out)
    checked.__name__ = checked.__qualname__ = op.__name__
    checked.__doc__ = op.__doc__
    return checked


# ---------------------------------------------------------------- error function family
def _erfcx_slope(x: Tensor) -> Tensor:
    """d/dx exp(x^2) erfc(x) = 2 x erfcx(x) - 2 / sqrt(pi)."""
    return 2 * x * erfcx(x) - 2 / math.sqrt(math.pi)


erfcx = _no_16_bit(unary("Erfcx", _in_float64(kernels.erfcx),
                         grad=lambda g, x: g * _erfcx_slope(x),
                         backward_name="SpecialErfcxBackward0"), "erfcx_cpu")


def ndtr(input: Tensor, *, out=None) -> Tensor:
    """The standard normal CDF, erfc(-x / sqrt(2)) / 2 (erfc keeps the left tail exact)."""
    return _with_out(_named(erfc(input * -math.sqrt(0.5)) * 0.5, "MulBackward1"), out)


def _log_ndtr_slope(x: Tensor) -> Tensor:
    """pdf(x) / cdf(x), written with erfcx so that it stays finite far in the left tail."""
    return _SQRT_2_OVER_PI / erfcx(x * -math.sqrt(0.5))


log_ndtr = _no_16_bit(unary("Log_ndtr", _in_float64(kernels.log_ndtr),
                            grad=lambda g, x: g * _log_ndtr_slope(x),
                            backward_name="SpecialLogNdtrBackward0"), "log_ndtr_cpu")
ndtri = _no_16_bit(unary("Ndtri", _in_float64(kernels.ndtri),
                         grad_from_output=lambda g, y: g * math.sqrt(2 * math.pi)
                         * (y * y * 0.5).exp(),
                         backward_name="SpecialNdtriBackward0"), "ndtri_cpu")


# ---------------------------------------------------------------- scaled Bessel functions
def _i0e_slope(x: Tensor) -> Tensor:
    """d/dx exp(-|x|) I0(x) = i1e(x) - sign(x) i0e(x)."""
    return i1e(x) - x.sign() * i0e(x)


def _i1e_slope(x: Tensor) -> Tensor:
    """d/dx exp(-|x|) I1(x) = i0e(x) - i1e(x) (sign(x) + 1 / x), which is 1/2 at 0."""
    return where(x == 0, 0.5, i0e(x) - i1e(x) * (x.sign() + 1 / x))


i0e = unary("I0e", _in_float64(lambda a: kernels.bessel_i_scaled(a, 0)),
            grad=lambda g, x: g * _i0e_slope(x), backward_name="SpecialI0EBackward0")
i1e = unary("I1e", _in_float64(lambda a: kernels.bessel_i_scaled(a, 1)),
            grad=lambda g, x: g * _i1e_slope(x), backward_name="SpecialI1EBackward0")


# ---------------------------------------------------------------- entropy terms
def _entr(a: np.ndarray) -> np.ndarray:
    """-a log(a) for a > 0, 0 at 0, -inf below (NaN stays NaN)."""
    positive = -a * np.log(np.where(a > 0, a, 1))
    return np.where(a > 0, positive, np.where(a == 0, 0, np.where(a < 0, -np.inf, a)))


entr = unary("Entr", _entr, grad=lambda g, x: -g * (x.log() + 1),
             backward_name="SpecialEntrBackward0")


def _xlog1py_kernel(x, y):
    """x * log1p(y), taken as 0 where x == 0 unless y is NaN."""
    return np.where((x == 0) & ~np.isnan(y), 0, x * np.log1p(y))


_xlog1py = binary("Xlog1py", _xlog1py_kernel,
                  lambda g, a, b, y: g * _xlog1py(a != 0, b),
                  lambda g, a, b, y: g * a / (b + 1),
                  backward_name="SpecialXlog1PyBackward0",
                  scalar_backward_name="SpecialXlog1PyBackward2")


def xlog1py(input, other, *, out=None) -> Tensor:
    """input * log1p(other), 0 where input is 0 (unless other is NaN)."""
    result = _xlog1py(input, other, out=out)
    return result if isinstance(input, Tensor) else _named(result, "SpecialXlog1PyBackward1")


# ---------------------------------------------------------------- zeta and gamma
def _in_float64_pair(fn):
    """A two-operand float64 kernel fed any operands (the op casts its result back)."""
    return lambda x, y: fn(np.asarray(x, np.float64), np.asarray(y, np.float64))


def _not_implemented(what: str):
    def grad(g, a, b, y):
        raise NotImplementedError(f"the derivative for '{what}' is not implemented.")
    return grad


def _tensor_operands(name: str, input, other) -> None:
    for position, (arg, value) in enumerate((("input", input), ("other", other)), start=1):
        if not isinstance(value, Tensor):
            raise TypeError(f"{name}(): argument '{arg}' (position {position}) must be Tensor, "
                            f"not {type(value).__name__}")


_zeta = binary("Zeta", _in_float64_pair(kernels.zeta), _not_implemented("zeta"),
               lambda g, x, q, y: -g * x * zeta(x + 1, q),
               backward_name="SpecialZetaBackward0",
               scalar_backward_name="SpecialZetaBackward2")


def zeta(input, other, *, out=None) -> Tensor:
    """The Hurwitz zeta function sum_k (k + other)^-input (the Riemann zeta at other = 1).
    Differentiable in `other` only, as in torch."""
    refuse_16_bit(_dtype.result_type(input, other).numpy, "zeta_cpu")
    result = _zeta(input, other, out=out)
    return result if isinstance(input, Tensor) else _named(result, "SpecialZetaBackward1")


def _gamma_density(a: Tensor, x: Tensor) -> Tensor:
    """x^(a-1) exp(-x) / Gamma(a): the derivative of P(a, x) in x."""
    return ((a - 1) * x.log() - x - lgamma(a)).exp()


_igamma = binary("Igamma", _in_float64_pair(kernels.gammainc),
                 _not_implemented("igamma: input"),
                 lambda g, a, x, y: g * _gamma_density(a, x), ints=False)
_igammac = binary("Igammac", _in_float64_pair(lambda a, x: kernels.gammainc(a, x, upper=True)),
                  _not_implemented("igammac: input"),
                  lambda g, a, x, y: -g * _gamma_density(a, x), ints=False)


def igamma(input: Tensor, other: Tensor, *, out=None) -> Tensor:
    """The regularized lower incomplete gamma function P(input, other).
    Differentiable in `other` only, as in torch."""
    _tensor_operands("igamma", input, other)
    return _igamma(input, other, out=out)


def igammac(input: Tensor, other: Tensor, *, out=None) -> Tensor:
    """The regularized upper incomplete gamma function Q(input, other) = 1 - P.
    Differentiable in `other` only, as in torch."""
    _tensor_operands("igammac", input, other)
    return _igammac(input, other, out=out)


def gammainc(input: Tensor, other: Tensor, *, out=None) -> Tensor:
    """Regularised lower incomplete gamma function P(input, other), elementwise (input is the shape
    a > 0, other the point x >= 0)."""
    _tensor_operands("special_gammainc", input, other)
    return _igamma(input, other, out=out)


def gammaincc(input: Tensor, other: Tensor, *, out=None) -> Tensor:
    """Regularised upper incomplete gamma function Q(input, other) = 1 - P(input, other),
    elementwise."""
    _tensor_operands("special_gammaincc", input, other)
    return _igammac(input, other, out=out)


def mvlgamma(input: Tensor, p: int) -> Tensor:
    """The multivariate log-gamma function of dimension p:
    p (p - 1) / 4 log(pi) + sum_(i < p) lgamma(input - i / 2)."""
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    if not input.is_floating_point():
        input = input.to(_dtype.get_default_dtype())
    halves = arange(p, dtype=input.dtype) * -0.5
    terms = lgamma(input.unsqueeze(-1) + halves)
    result = terms.sum(-1) + p * (p - 1) / 4 * math.log(math.pi)
    return _named(result, "MvlgammaBackward0")


def multigammaln(input: Tensor, p: int, *, out=None) -> Tensor:
    """Log of the multivariate gamma function of dimension `p`, elementwise; the same as mvlgamma.
    """
    return _with_out(mvlgamma(input, p), out)


# ---------------------------------------------------------------- orthogonal polynomials
def _polynomial_op(name: str, kernel):
    """torch.special.<name>(input, n): the degree-n polynomial at input, elementwise, for
    integer n (a float n is truncated, a negative one gives 0). Not differentiable."""
    def op(input, n, *, out=None) -> Tensor:
        dtype = _float_result_type(input, n).numpy
        refuse_16_bit(dtype, name + "_cpu")
        values = kernel(data_of(input), data_of(n))
        return _with_out(Tensor._wrap(np.asarray(values).astype(dtype)), out)
    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"torch.special.{name}(input, n) (not differentiable, as in torch)."
    return op


def _shifted(kernel):
    """The family moved from [-1, 1] to [0, 1]: p*_n(x) = p_n(2x - 1)."""
    return lambda x, n: kernel(np.asarray(x, np.float64) * 2 - 1, n)


chebyshev_polynomial_t = _polynomial_op("chebyshev_polynomial_t", kernels.chebyshev_t)
chebyshev_polynomial_u = _polynomial_op("chebyshev_polynomial_u", kernels.chebyshev_u)
chebyshev_polynomial_v = _polynomial_op("chebyshev_polynomial_v", kernels.chebyshev_v)
chebyshev_polynomial_w = _polynomial_op("chebyshev_polynomial_w", kernels.chebyshev_w)
shifted_chebyshev_polynomial_t = _polynomial_op("shifted_chebyshev_polynomial_t",
                                                _shifted(kernels.chebyshev_t))
shifted_chebyshev_polynomial_u = _polynomial_op("shifted_chebyshev_polynomial_u",
                                                _shifted(kernels.chebyshev_u))
shifted_chebyshev_polynomial_v = _polynomial_op("shifted_chebyshev_polynomial_v",
                                                _shifted(kernels.chebyshev_v))
shifted_chebyshev_polynomial_w = _polynomial_op("shifted_chebyshev_polynomial_w",
                                                _shifted(kernels.chebyshev_w))
hermite_polynomial_h = _polynomial_op("hermite_polynomial_h", kernels.hermite_h)
hermite_polynomial_he = _polynomial_op("hermite_polynomial_he", kernels.hermite_he)
laguerre_polynomial_l = _polynomial_op("laguerre_polynomial_l", kernels.laguerre_l)
legendre_polynomial_p = _polynomial_op("legendre_polynomial_p", kernels.legendre_p)
