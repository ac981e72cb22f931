"""Inverse gamma distribution: 1 / X for X ~ Gamma(concentration, rate)."""
from __future__ import annotations

import math

import ember
from ember import Tensor

from . import constraints
from .gamma import Gamma
from .transformed_distribution import TransformedDistribution
from .transforms import PowerTransform

__all__ = ["InverseGamma"]


class InverseGamma(TransformedDistribution):
    """Inverse gamma distribution with shape `concentration` and scale `rate`."""

    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, concentration, rate, validate_args=None):
        base_dist = Gamma(concentration, rate, validate_args=validate_args)
        minus_one = -base_dist.rate.new_ones(())
        super().__init__(base_dist, PowerTransform(minus_one), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None) -> "InverseGamma":
        new = self._get_checked_instance(InverseGamma, _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def concentration(self) -> Tensor:
        return self.base_dist.concentration

    @property
    def rate(self) -> Tensor:
        return self.base_dist.rate

    @property
    def mean(self) -> Tensor:
        # Infinite unless concentration > 1.
        mean = self.rate / (self.concentration - 1)
        return ember.where(self.concentration > 1, mean, math.inf)

    @property
    def mode(self) -> Tensor:
        return self.rate / (self.concentration + 1)

    @property
    def variance(self) -> Tensor:
        # Infinite unless concentration > 2.
        a = self.concentration
        variance = self.rate.pow(2) / ((a - 1).pow(2) * (a - 2))
        return ember.where(a > 2, variance, math.inf)

    def entropy(self) -> Tensor:
        a = self.concentration
        return a + self.rate.log() + ember.lgamma(a) - (1 + a) * ember.digamma(a)
