"""HalfCauchy: |X| for X ~ Cauchy(0, scale)."""
from __future__ import annotations

import ember
from ember import Tensor

from .cauchy import Cauchy
from .half_normal import _FoldedAtZero

__all__ = ["HalfCauchy"]


class HalfCauchy(_FoldedAtZero):
    """The absolute value of a Cauchy(0, scale) variable; its mean is infinite."""

    def __init__(self, scale, validate_args=None):
        super().__init__(Cauchy(0, scale, validate_args=False), validate_args=validate_args)

    def _as_value(self, value) -> Tensor:
        # As in torch: numbers are accepted, and values take the parameter's dtype.
        return ember.as_tensor(value, dtype=self.scale.dtype)

    @property
    def mean(self) -> Tensor:
        return ember.full(self._extended_shape(), float("inf"), dtype=self.scale.dtype)

    @property
    def variance(self) -> Tensor:
        return self.base_dist.variance
