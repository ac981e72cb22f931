"""HalfNormal: |X| for X ~ Normal(0, scale); and the folding shared with HalfCauchy."""
from __future__ import annotations

import math

import ember
from ember import Tensor

from . import constraints
from .normal import Normal
from .transformed_distribution import TransformedDistribution
from .transforms import AbsTransform

__all__ = ["HalfNormal"]


class _FoldedAtZero(TransformedDistribution):
    """|X| for X drawn from a distribution symmetric about 0 with parameter `scale`:
    the density doubles on x >= 0 and the entropy loses log 2."""

    arg_constraints = {"scale": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, base_dist, validate_args=None):
        super().__init__(base_dist, AbsTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None) -> "_FoldedAtZero":
        new = self._get_checked_instance(type(self), _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def scale(self) -> Tensor:
        return self.base_dist.scale

    @property
    def mode(self) -> Tensor:
        return ember.zeros_like(self.scale)

    def _as_value(self, value) -> Tensor:
        """How log_prob reads its argument (HalfCauchy also accepts numbers)."""
        return value

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        value = self._as_value(value)
        log_prob = self.base_dist.log_prob(value) + math.log(2)
        return ember.where(value >= 0, log_prob, float("-inf"))

    def cdf(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return 2 * self.base_dist.cdf(value) - 1

    def icdf(self, prob: Tensor) -> Tensor:
        return self.base_dist.icdf((prob + 1) / 2)

    def entropy(self) -> Tensor:
        return self.base_dist.entropy() - math.log(2)


class HalfNormal(_FoldedAtZero):
    """The absolute value of a Normal(0, scale) variable."""

    def __init__(self, scale, validate_args=None):
        super().__init__(Normal(0, scale, validate_args=False), validate_args=validate_args)

    @property
    def mean(self) -> Tensor:
        return self.scale * math.sqrt(2 / math.pi)

    @property
    def variance(self) -> Tensor:
        return self.scale.pow(2) * (1 - 2 / math.pi)
