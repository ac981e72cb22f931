"""Kumaraswamy distribution on (0, 1): a Beta look-alike with a closed-form CDF,
F(x) = 1 - (1 - x^a)^b, so a sample is (1 - (1 - U)^(1/b))^(1/a) for U uniform."""
from __future__ import annotations

import math

import ember
from ember import Tensor

from . import constraints
from .transformed_distribution import TransformedDistribution
from .transforms import AffineTransform, PowerTransform
from .uniform import Uniform
from .utils import broadcast_all

__all__ = ["Kumaraswamy"]

_EULER_GAMMA = 0.57721566490153286061


def _moment(a: Tensor, b: Tensor, n: int) -> Tensor:
    """E[X^n] = b * B(1 + n/a, b), the Beta function written with lgamma."""
    shifted = 1 + n / a
    log_beta = ember.lgamma(shifted) + ember.lgamma(b) - ember.lgamma(shifted + b)
    return b * log_beta.exp()


class Kumaraswamy(TransformedDistribution):
    """Kumaraswamy distribution with density a b x^(a-1) (1 - x^a)^(b-1), where
    a = `concentration1` and b = `concentration0`."""

    arg_constraints = {"concentration1": constraints.positive,
                       "concentration0": constraints.positive}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1, concentration0, validate_args=None):
        self.concentration1, self.concentration0 = broadcast_all(concentration1,
                                                                 concentration0)
        base_dist = Uniform(ember.full_like(self.concentration0, 0),
                            ember.full_like(self.concentration0, 1),
                            validate_args=validate_args)
        transforms = [PowerTransform(exponent=self.concentration0.reciprocal()),
                      AffineTransform(loc=1.0, scale=-1.0),
                      PowerTransform(exponent=self.concentration1.reciprocal())]
        super().__init__(base_dist, transforms, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None) -> "Kumaraswamy":
        new = self._get_checked_instance(Kumaraswamy, _instance)
        new.concentration1 = self.concentration1.expand(batch_shape)
        new.concentration0 = self.concentration0.expand(batch_shape)
        return super().expand(batch_shape, _instance=new)

    @property
    def mean(self) -> Tensor:
        return _moment(self.concentration1, self.concentration0, 1)

    @property
    def mode(self) -> Tensor:
        a, b = self.concentration1, self.concentration0
        # ((a - 1) / (a b - 1))^(1/a), defined (nan otherwise) when both exceed 1.
        log_mode = (-b).log1p() / b - (-b * a).log1p()
        return ember.where((b < 1) | (a < 1), math.nan, log_mode).exp()

    @property
    def variance(self) -> Tensor:
        return _moment(self.concentration1, self.concentration0, 2) - self.mean.pow(2)

    def entropy(self) -> Tensor:
        a, b = self.concentration1, self.concentration0
        harmonic_b = ember.digamma(b + 1) + _EULER_GAMMA
        return (1 - b.reciprocal()) + (1 - a.reciprocal()) * harmonic_b - a.log() - b.log()
