"""Generalized Pareto distribution: the limit law of exceedances over a high threshold.

With z = (x - loc) / scale and concentration c, the survival function is (1 + c z)^(-1/c),
and exp(-z) in the limit c = 0 (the exponential distribution). For c < 0 the support is
bounded above by loc - scale / c.
"""
from __future__ import annotations

import math
import numbers

import ember
from ember import Size, Tensor

from . import constraints
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["GeneralizedPareto"]


class GeneralizedPareto(Distribution):
    """Generalized Pareto distribution with `loc`, `scale` and `concentration` (the tail
    shape: heavier tails for larger values)."""

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive,
                       "concentration": constraints.real}
    has_rsample = True

    def __init__(self, loc, scale, concentration, validate_args=None):
        self.loc, self.scale, self.concentration = broadcast_all(loc, scale, concentration)
        if all(isinstance(v, numbers.Number) for v in (loc, scale, concentration)):
            batch_shape = Size()
        else:
            batch_shape = self.loc.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None) -> "GeneralizedPareto":
        return self._expand_parameters(GeneralizedPareto, batch_shape, _instance,
                                       ("loc", "scale", "concentration"))

    def _split_concentration(self):
        """(is c ~ 0, c with those entries replaced by 1 so every branch stays finite)."""
        c = self.concentration
        is_zero = ember.isclose(c, ember.zeros_like(c))
        return is_zero, ember.where(is_zero, ember.ones_like(c), c)

    def _z(self, value: Tensor) -> Tensor:
        return (value - self.loc) / self.scale

    def rsample(self, sample_shape=Size()) -> Tensor:
        u = ember.rand(self._extended_shape(sample_shape), dtype=self.loc.dtype)
        return self.icdf(u)

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        z = self._z(value)
        is_zero, c = self._split_concentration()
        power = 1 / c + 1
        # (1/c + 1) log(1 + c z), taken as 0 when the power is 0 (c = -1: a uniform density).
        nonzero = ember.where(power == 0, power, power * ember.log1p(c * z))
        return -self.scale.log() - ember.where(is_zero, z, nonzero)

    def log_survival_function(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        z = self._z(value)
        is_zero, c = self._split_concentration()
        return ember.where(is_zero, -z, -ember.log1p(c * z) / c)

    def log_cdf(self, value: Tensor) -> Tensor:
        return ember.log1p(-ember.exp(self.log_survival_function(value)))

    def cdf(self, value: Tensor) -> Tensor:
        return ember.exp(self.log_cdf(value))

    def icdf(self, value: Tensor) -> Tensor:
        is_zero, c = self._split_concentration()
        log_survival = ember.log1p(-value)
        nonzero = self.loc + self.scale / c * ember.expm1(-c * log_survival)
        return ember.where(is_zero, self.loc - self.scale * log_survival, nonzero)

    @property
    def mean(self) -> Tensor:
        c = self.concentration
        finite = c < 1
        safe = ember.where(finite, c, ember.full_like(c, 0.5))
        return ember.where(finite, self.loc + self.scale / (1 - safe), math.nan)

    @property
    def variance(self) -> Tensor:
        c = self.concentration
        finite = c < 0.5
        safe = ember.where(finite, c, ember.full_like(c, 0.25))
        variance = self.scale.pow(2) / ((1 - safe).pow(2) * (1 - 2 * safe))
        return ember.where(finite, variance, math.nan)

    @property
    def mode(self) -> Tensor:
        return self.loc

    def entropy(self) -> Tensor:
        return (self.scale.log() + self.concentration + 1).broadcast_to(self._batch_shape)

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        upper = ember.where(self.concentration < 0, self.loc - self.scale / self.concentration,
                            math.inf)
        return constraints.interval(self.loc, upper)
