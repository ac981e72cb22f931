"""Gamma distribution, and the reparameterized standard-gamma sampler that Dirichlet and
Beta build on.

A gamma draw cannot be written as a smooth function of a fixed noise draw, so rsample
uses the implicit reparameterization gradient (Figurnov et al., 2018): with F the CDF
and u = F(x; alpha) held fixed, dx/dalpha = -(dF/dalpha) / (dF/dx).
"""
from __future__ import annotations

import numpy as np

import ember
from ember import Size, Tensor
from ember import _sampling
from ember._random import default_generator
from ember.autograd.function import Function
from ember.ops._special_math import lgamma as _lgamma_array

from . import constraints
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["Gamma"]

_MAX_TERMS = 10_000
_TINY = np.finfo(np.float64).tiny


def _incomplete_gamma_series(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    """sum_n x^n / (a (a+1) ... (a+n)), so that P(a, x) = x^a e^-x / Gamma(a) * sum."""
    term = 1.0 / a
    total = term.copy()
    active = np.ones(a.shape, dtype=bool)
    for n in range(1, _MAX_TERMS):
        term = np.where(active, term * x / (a + n), 0.0)
        total += term
        active &= np.abs(term) > 1e-17 * np.abs(total)
        if not active.any():
            break
    return total


def _incomplete_gamma_fraction(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    """The continued fraction (modified Lentz method) with Q(a, x) = x^a e^-x / Gamma(a) * it;
    it converges quickly where the series is slow, for x > a + 1."""
    b = x + 1.0 - a
    c = np.full(a.shape, 1.0 / _TINY)
    d = 1.0 / b
    result = d.copy()
    active = np.ones(a.shape, dtype=bool)
    for i in range(1, _MAX_TERMS):
        an = -i * (i - a)
        b = b + 2.0
        d = an * d + b
        d = np.where(np.abs(d) < _TINY, _TINY, d)
        c = b + an / c
        c = np.where(np.abs(c) < _TINY, _TINY, c)
        d = 1.0 / d
        delta = np.where(active, d * c, 1.0)
        result *= delta
        active &= np.abs(delta - 1.0) > 1e-16
        if not active.any():
            break
    return result


def _incomplete_gamma_expansion(a: np.ndarray, x: np.ndarray,
                                use_series: np.ndarray) -> np.ndarray:
    """The series where `use_series`, minus the continued fraction elsewhere, so that
    P(a, x) = (0 or 1) + x^a e^-x / Gamma(a) * expansion in both regions."""
    expansion = np.empty_like(a)
    expansion[use_series] = _incomplete_gamma_series(a[use_series], x[use_series])
    fraction = ~use_series
    expansion[fraction] = -_incomplete_gamma_fraction(a[fraction], x[fraction])
    return expansion


def _standard_gamma_grad(alpha: np.ndarray, x: np.ndarray) -> np.ndarray:
    """dx/dalpha of a Gamma(alpha, 1) draw x at a fixed CDF value (float64 arrays).

    dP/da is a central difference in a and dP/dx = x^(a-1) e^-x / Gamma(a); the common factor
    x^a e^-x / Gamma(a) cancels in their ratio, which keeps everything far from overflow.
    """
    alpha, x = np.broadcast_arrays(alpha, x)
    use_series = x < alpha + 1.0    # decided once, so both sides of the difference agree
    step = 1e-5 * alpha
    log_x = np.log(x)

    def scaled_cdf(a):
        """P at shape a, less its constant part, over the prefactor at the original alpha."""
        ratio = np.exp((a - alpha) * log_x - _lgamma_array(a) + _lgamma_array(alpha))
        return ratio * _incomplete_gamma_expansion(a, x, use_series)

    with np.errstate(all="ignore"):
        d_cdf_d_alpha = (scaled_cdf(alpha + step) - scaled_cdf(alpha - step)) / (2 * step)
    return -x * d_cdf_d_alpha


def _regularized_gamma_p(a: np.ndarray, x: np.ndarray) -> np.ndarray:
    """The regularized lower incomplete gamma function P(a, x), the Gamma(a, 1) CDF."""
    a, x = np.broadcast_arrays(a.astype(np.float64), x.astype(np.float64))
    result = np.where(x > 0, 1.0, 0.0)     # the limits at x <= 0 and x = inf
    inside = (x > 0) & np.isfinite(x)
    a, x = a[inside], x[inside]
    use_series = x < a + 1.0
    prefactor = np.exp(a * np.log(x) - x - _lgamma_array(a))
    result[inside] = (np.where(use_series, 0.0, 1.0)
                      + prefactor * _incomplete_gamma_expansion(a, x, use_series))
    return result


class _RegularizedGammaP(Function):
    """P(a, x), differentiable in x only (torch does not differentiate igamma in a)."""

    backward_name = "IgammaBackward0"

    @staticmethod
    def forward(ctx, a, x):
        ctx.save_for_backward(a, x)
        return _regularized_gamma_p(a, x).astype(np.result_type(a, x))

    @staticmethod
    def backward(ctx, grad):
        a, x = ctx._unpacked_saved
        if ctx.needs_input_grad[0]:
            raise NotImplementedError("the derivative for 'igamma: input' is not implemented.")
        density = ember.exp((a - 1) * ember.log(x) - x - ember.lgamma(a))
        return None, grad * density


class _StandardGammaGrad(Function):
    """dx/dalpha of standard gamma draws x; like torch, ember cannot differentiate it again."""

    backward_name = "StandardGammaGradBackward0"

    @staticmethod
    def forward(ctx, concentration, sample):
        return _standard_gamma_grad(concentration.astype(np.float64),
                                    sample.astype(np.float64)).astype(concentration.dtype)

    @staticmethod
    def backward(ctx, grad):
        raise NotImplementedError("the derivative for '_standard_gamma_grad' is not implemented.")


class _StandardGamma(Function):
    """Draw Gamma(concentration, 1) samples; backward uses the implicit gradient."""

    backward_name = "StandardGammaBackward0"
    saves_outputs = True

    @staticmethod
    def forward(ctx, alpha):
        ctx.save_for_backward(alpha)
        # (draws are clamped to the smallest normal number, so that log(x) stays finite)
        if alpha.dtype in (np.float32, np.float64):
            return _sampling.gamma(default_generator, alpha)
        return _sampling.gamma(default_generator, alpha.astype(np.float32)).astype(alpha.dtype)

    @staticmethod
    def backward(ctx, grad):
        (concentration,) = ctx._unpacked_saved
        return grad * _StandardGammaGrad.apply(concentration, ctx.output(0))


def _standard_gamma(concentration: Tensor) -> Tensor:
    """Gamma(concentration, 1) draws, differentiable w.r.t. the concentration."""
    return _StandardGamma.apply(concentration)


class Gamma(Distribution):
    """Gamma distribution with shape `concentration` and inverse scale `rate`."""

    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, concentration, rate, validate_args=None):
        self.concentration, self.rate = broadcast_all(concentration, rate)
        super().__init__(self.concentration.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None) -> "Gamma":
        return self._expand_parameters(Gamma, batch_shape, _instance, ("concentration", "rate"))

    @property
    def mean(self) -> Tensor:
        return self.concentration / self.rate

    @property
    def mode(self) -> Tensor:
        return ((self.concentration - 1) / self.rate).clamp(min=0)

    @property
    def variance(self) -> Tensor:
        return self.concentration / self.rate.pow(2)

    def rsample(self, sample_shape=Size()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        value = _standard_gamma(self.concentration.expand(shape)) / self.rate.expand(shape)
        return value.clamp(min=ember.finfo(value.dtype).tiny)

    def log_prob(self, value) -> Tensor:
        value = ember.as_tensor(value, dtype=self.rate.dtype)
        if self._validate_args:
            self._validate_sample(value)
        return (ember.xlogy(self.concentration, self.rate)
                + ember.xlogy(self.concentration - 1, value)
                - self.rate * value - ember.lgamma(self.concentration))

    def cdf(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return _RegularizedGammaP.apply(self.concentration, self.rate * value)

    def entropy(self) -> Tensor:
        return (self.concentration - ember.log(self.rate) + ember.lgamma(self.concentration)
                + (1.0 - self.concentration) * ember.digamma(self.concentration))
