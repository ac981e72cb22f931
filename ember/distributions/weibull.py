"""Weibull distribution: scale * E^(1 / concentration) for E ~ Exponential(1)."""
from __future__ import annotations

import ember
from ember import Tensor

from . import constraints
from .exponential import Exponential
from .gumbel import _EULER_GAMMA
from .transformed_distribution import TransformedDistribution
from .transforms import AffineTransform, PowerTransform
from .utils import broadcast_all

__all__ = ["Weibull"]


def _weibull_transforms(scale: Tensor, concentration_reciprocal: Tensor) -> list:
    return [PowerTransform(exponent=concentration_reciprocal),
            AffineTransform(loc=0, scale=scale)]


class Weibull(TransformedDistribution):
    """Two-parameter Weibull distribution with `scale` (lambda) and `concentration` (k)."""

    arg_constraints = {"scale": constraints.positive, "concentration": constraints.positive}
    support = constraints.positive

    def __init__(self, scale, concentration, validate_args=None):
        self.scale, self.concentration = broadcast_all(scale, concentration)
        self.concentration_reciprocal = self.concentration.reciprocal()
        base_dist = Exponential(ember.ones_like(self.scale), validate_args=validate_args)
        super().__init__(base_dist, _weibull_transforms(self.scale,
                                                        self.concentration_reciprocal),
                         validate_args=validate_args)

    def expand(self, batch_shape, _instance=None) -> "Weibull":
        new = self._get_checked_instance(Weibull, _instance)
        new.scale = self.scale.expand(batch_shape)
        new.concentration = self.concentration.expand(batch_shape)
        new.concentration_reciprocal = new.concentration.reciprocal()
        transforms = _weibull_transforms(new.scale, new.concentration_reciprocal)
        TransformedDistribution.__init__(new, self.base_dist.expand(batch_shape), transforms,
                                         validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self) -> Tensor:
        return self.scale * ember.exp(ember.lgamma(1 + self.concentration_reciprocal))

    @property
    def mode(self) -> Tensor:
        return (self.scale * ((self.concentration - 1) / self.concentration)
                ** self.concentration.reciprocal())

    @property
    def variance(self) -> Tensor:
        return self.scale.pow(2) * (
            ember.exp(ember.lgamma(1 + 2 * self.concentration_reciprocal))
            - ember.exp(2 * ember.lgamma(1 + self.concentration_reciprocal)))

    def entropy(self) -> Tensor:
        return (_EULER_GAMMA * (1 - self.concentration_reciprocal)
                + ember.log(self.scale * self.concentration_reciprocal) + 1)
