"""ember.special: the torch.special namespace.

Most entries are ember's existing ops under SciPy-style names (expit is sigmoid, gammaln
is lgamma, psi is digamma ...) or come from ops/special_functions.py. The Bessel and Airy
functions that torch does not differentiate (bessel_j0, modified_bessel_k0, airy_ai ...)
are defined here on the kernels of ops/_special_math.py; their results never require
grad, as in torch.
"""
from __future__ import annotations

import numpy as np

from ._tensor import Tensor
from .autograd.grad_mode import no_grad
from .ops import _special_math as kernels
from .ops.pointwise import _with_out, to_float
from .ops.softmax import log_softmax, softmax
from .ops.pointwise.binary import xlogy
from .ops.pointwise.unary import (_i1 as i1, _in_float64, digamma, erf, erfc, erfinv, exp2,
                                  expm1, i0, lgamma as gammaln, log1p, logit, polygamma, round,
                                  sigmoid, sinc)
from .ops.reduction import logsumexp
from .ops.special_functions import (
    chebyshev_polynomial_t, chebyshev_polynomial_u, chebyshev_polynomial_v,
    chebyshev_polynomial_w, entr, erfcx, gammainc, gammaincc, hermite_polynomial_h,
    hermite_polynomial_he, i0e, i1e, laguerre_polynomial_l, legendre_polynomial_p, log_ndtr,
    multigammaln, ndtr, ndtri, refuse_16_bit, shifted_chebyshev_polynomial_t,
    shifted_chebyshev_polynomial_u, shifted_chebyshev_polynomial_v,
    shifted_chebyshev_polynomial_w, xlog1py, zeta)

__all__ = ["airy_ai", "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "chebyshev_polynomial_t",
           "chebyshev_polynomial_u", "chebyshev_polynomial_v", "chebyshev_polynomial_w", "digamma",
           "entr", "erf", "erfc", "erfcx", "erfinv", "exp2", "expit", "expm1", "gammainc",
           "gammaincc", "gammaln", "hermite_polynomial_h", "hermite_polynomial_he", "i0", "i0e",
           "i1", "i1e", "laguerre_polynomial_l", "legendre_polynomial_p", "log1p", "log_ndtr",
           "log_softmax", "logit", "logsumexp", "modified_bessel_i0", "modified_bessel_i1",
           "modified_bessel_k0", "modified_bessel_k1", "multigammaln", "ndtr", "ndtri", "polygamma",
           "psi", "round", "scaled_modified_bessel_k0", "scaled_modified_bessel_k1",
           "shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u",
           "shifted_chebyshev_polynomial_v", "shifted_chebyshev_polynomial_w", "sinc", "softmax",
           "spherical_bessel_j0", "xlog1py", "xlogy", "zeta"]

expit = sigmoid
psi = digamma


def _forward_only(name: str, compute):
    """A float32/float64-only special function torch gives no derivative: compute(input)
    runs without recording, so the result never requires grad."""
    def op(input: Tensor, *, out=None) -> Tensor:
        refuse_16_bit(input.dtype.numpy, name + "_cpu")
        with no_grad():
            return _with_out(compute(input), out)
    op.__name__ = op.__qualname__ = name
    op.__doc__ = f"torch.special.{name} (not differentiable, as in torch)."
    return op


def _kernel(fn):
    """An op body running a float64 NumPy kernel on the input (integers as the default
    float dtype) and rounding back to the input's dtype."""
    return lambda input: Tensor._wrap(_in_float64(fn)(to_float(input.numpy(force=True))))


def _scaled_k_times_exp(index: int):
    """K_n(x) from the scaled kernel exp(x) K_n(x)."""
    return lambda a: kernels.bessel_k_scaled(a)[index] * np.exp(-a)


modified_bessel_i0 = _forward_only("modified_bessel_i0", i0)
modified_bessel_i1 = _forward_only("modified_bessel_i1", i1)
modified_bessel_k0 = _forward_only("modified_bessel_k0", _kernel(_scaled_k_times_exp(0)))
modified_bessel_k1 = _forward_only("modified_bessel_k1", _kernel(_scaled_k_times_exp(1)))
scaled_modified_bessel_k0 = _forward_only(
    "scaled_modified_bessel_k0", _kernel(lambda a: kernels.bessel_k_scaled(a)[0]))
scaled_modified_bessel_k1 = _forward_only(
    "scaled_modified_bessel_k1", _kernel(lambda a: kernels.bessel_k_scaled(a)[1]))
bessel_j0 = _forward_only("bessel_j0", _kernel(lambda a: kernels.bessel_jy(a)[0]))
bessel_j1 = _forward_only("bessel_j1", _kernel(lambda a: kernels.bessel_jy(a)[1]))
bessel_y0 = _forward_only("bessel_y0", _kernel(lambda a: kernels.bessel_jy(a)[2]))
bessel_y1 = _forward_only("bessel_y1", _kernel(lambda a: kernels.bessel_jy(a)[3]))
spherical_bessel_j0 = _forward_only("spherical_bessel_j0",
                                    _kernel(kernels.spherical_bessel_j0))
airy_ai = _forward_only("airy_ai", _kernel(kernels.airy_ai))
