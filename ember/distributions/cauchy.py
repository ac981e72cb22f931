"""Cauchy (Lorentz) distribution: the ratio of two independent zero-mean normals."""
from __future__ import annotations

import math

import ember
from ember import Size, Tensor

from .distribution import _LocationScale

__all__ = ["Cauchy"]


class Cauchy(_LocationScale):
    """Cauchy distribution with median `loc` and half width at half maximum `scale`.

    Its tails are so heavy that the mean is undefined (nan) and the variance infinite.
    """

    def expand(self, batch_shape, _instance=None) -> "Cauchy":
        return self._expand_parameters(Cauchy, batch_shape, _instance, ("loc", "scale"))

    @property
    def mean(self) -> Tensor:
        return ember.full(self._extended_shape(), float("nan"), dtype=self.loc.dtype)

    @property
    def variance(self) -> Tensor:
        return ember.full(self._extended_shape(), float("inf"), dtype=self.loc.dtype)

    def rsample(self, sample_shape=Size()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        eps = ember.empty(shape, dtype=self.loc.dtype).cauchy_()
        return self.loc + eps * self.scale

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return (-math.log(math.pi) - self.scale.log()
                - ((value - self.loc) / self.scale).pow(2).log1p())

    def cdf(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return ember.atan((value - self.loc) / self.scale) / math.pi + 0.5

    def icdf(self, value: Tensor) -> Tensor:
        return ember.tan(math.pi * (value - 0.5)) * self.scale + self.loc

    def entropy(self) -> Tensor:
        return math.log(4 * math.pi) + self.scale.log()
