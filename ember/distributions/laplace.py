"""Laplace (double exponential) distribution."""
from __future__ import annotations

import ember
from ember import Size, Tensor

from .distribution import _LocationScale

__all__ = ["Laplace"]


class Laplace(_LocationScale):
    """Laplace distribution with location `loc` and scale `scale`."""

    def expand(self, batch_shape, _instance=None) -> "Laplace":
        return self._expand_parameters(Laplace, batch_shape, _instance, ("loc", "scale"))

    @property
    def variance(self) -> Tensor:
        return 2 * self.scale.pow(2)

    @property
    def stddev(self) -> Tensor:
        return (2 ** 0.5) * self.scale

    def rsample(self, sample_shape=Size()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        eps = ember.finfo(self.loc.dtype).eps
        # u in (-1, 1): its sign picks the side, -log(1 - |u|) the distance from loc.
        u = ember.empty(shape, dtype=self.loc.dtype).uniform_(eps - 1, 1)
        return self.loc - self.scale * u.sign() * ember.log1p(-u.abs())

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return -ember.log(2 * self.scale) - ember.abs(value - self.loc) / self.scale

    def cdf(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        centred = value - self.loc
        return 0.5 - 0.5 * centred.sign() * ember.expm1(-centred.abs() / self.scale)

    def icdf(self, value: Tensor) -> Tensor:
        term = value - 0.5
        return self.loc - self.scale * term.sign() * ember.log1p(-2 * term.abs())

    def entropy(self) -> Tensor:
        return 1 + ember.log(2 * self.scale)
