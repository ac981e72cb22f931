"""Von Mises distribution: the circular analogue of the normal, on angles.

Density exp(concentration * cos(x - loc)) / (2 pi I0(concentration)). `loc` and values may
be any real numbers; they are read as angles modulo 2 pi.
"""
from __future__ import annotations

import math

import ember
from ember import Size, Tensor

from . import constraints
from .distribution import Distribution, _CenteredAtLoc
from .utils import broadcast_all, lazy_property

__all__ = ["VonMises"]


def _log_bessel_i0(x: Tensor) -> Tensor:
    """log I0(x) for x > 0, through the scaled i0e(x) = exp(-x) I0(x) so large x do not
    overflow. (torch uses a polynomial approximation with relative error ~1e-7, so values
    agree with torch to about that.)"""
    return ember.special.i0e(x).log() + x


def _log_bessel_i1(x: Tensor) -> Tensor:
    """log I1(x) for x > 0."""
    return ember.special.i1e(x).log() + x


class VonMises(_CenteredAtLoc, Distribution):
    """Von Mises distribution with mean direction `loc` (radians) and `concentration`
    (larger is narrower; mean and mode are the circular ones, loc)."""

    arg_constraints = {"loc": constraints.real, "concentration": constraints.positive}
    support = constraints.real
    has_rsample = False

    def __init__(self, loc, concentration, validate_args=None):
        self.loc, self.concentration = broadcast_all(loc, concentration)
        super().__init__(self.loc.shape, Size(), validate_args)

    def expand(self, batch_shape, _instance=None) -> "VonMises":
        return self._expand_parameters(VonMises, batch_shape, _instance,
                                       ("loc", "concentration"))

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return (self.concentration * ember.cos(value - self.loc) - math.log(2 * math.pi)
                - _log_bessel_i0(self.concentration))

    @lazy_property
    def variance(self) -> Tensor:
        """The circular variance 1 - I1(k) / I0(k)."""
        kappa = self.concentration
        return 1 - (_log_bessel_i1(kappa) - _log_bessel_i0(kappa)).exp()

    def sample(self, sample_shape=Size()) -> Tensor:
        """Best & Fisher's (1979) rejection sampler, run in float64: it proposes from a
        wrapped Cauchy-like envelope whose width r is tuned to the concentration."""
        shape = self._extended_shape(sample_shape)
        with ember.no_grad():
            loc = self.loc.to(ember.float64).expand(shape)
            kappa = self.concentration.to(ember.float64).expand(shape)
            angle = _best_fisher(kappa, _envelope_r(kappa))
            return ((angle + math.pi + loc) % (2 * math.pi) - math.pi).to(self.loc.dtype)


def _envelope_r(kappa: Tensor) -> Tensor:
    """Best & Fisher's envelope parameter r = (1 + rho^2) / (2 rho); for tiny kappa the
    formula cancels badly and its limit 1/kappa + kappa is used."""
    tau = 1 + (1 + 4 * kappa.pow(2)).sqrt()
    rho = (tau - (2 * tau).sqrt()) / (2 * kappa)
    return ember.where(kappa < 1e-5, 1 / kappa + kappa, (1 + rho.pow(2)) / (2 * rho))


def _best_fisher(kappa: Tensor, r: Tensor) -> Tensor:
    """Angles in [-pi, pi] around 0, drawn until every element has been accepted once."""
    angle = ember.zeros_like(kappa)
    done = ember.zeros(kappa.shape, dtype=ember.bool)
    while not bool(done.all()):
        u1, u2, u3 = ember.rand((3,) + tuple(kappa.shape), dtype=kappa.dtype).unbind()
        z = ember.cos(math.pi * u1)
        f = (1 + r * z) / (r + z)
        c = kappa * (r - f)
        # A cheap squeeze test first, then the exact test.
        accept = ((c * (2 - c) - u2) > 0) | ((c / u2).log() + 1 - c >= 0)
        accept = accept & ~done
        angle = ember.where(accept, (u3 - 0.5).sign() * ember.acos(f), angle)
        done = done | accept
    return angle
