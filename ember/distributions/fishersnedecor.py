"""Fisher-Snedecor (F) distribution: the ratio of two scaled chi-square draws,
(X1 / df1) / (X2 / df2), sampled as a ratio of two gammas."""
from __future__ import annotations

import math
import numbers

import ember
from ember import Size, Tensor

from . import constraints
from .distribution import Distribution
from .gamma import Gamma
from .utils import broadcast_all

__all__ = ["FisherSnedecor"]


class FisherSnedecor(Distribution):
    """F distribution with `df1` and `df2` degrees of freedom."""

    arg_constraints = {"df1": constraints.positive, "df2": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, df1, df2, validate_args=None):
        self.df1, self.df2 = broadcast_all(df1, df2)
        # Gamma(df / 2, rate=df) is Chi2(df) / (2 df); the factors 1/2 cancel in the ratio.
        self._gamma1 = Gamma(self.df1 * 0.5, self.df1)
        self._gamma2 = Gamma(self.df2 * 0.5, self.df2)
        if isinstance(df1, numbers.Number) and isinstance(df2, numbers.Number):
            batch_shape = Size()
        else:
            batch_shape = self.df1.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None) -> "FisherSnedecor":
        new = self._expand_parameters(FisherSnedecor, batch_shape, _instance, ("df1", "df2"))
        new._gamma1 = self._gamma1.expand(new.batch_shape)
        new._gamma2 = self._gamma2.expand(new.batch_shape)
        return new

    @property
    def mean(self) -> Tensor:
        df2 = self.df2
        return ember.where(df2 > 2, df2 / (df2 - 2), math.nan)    # undefined for df2 <= 2

    @property
    def mode(self) -> Tensor:
        mode = (self.df1 - 2) / self.df1 * self.df2 / (self.df2 + 2)
        return ember.where(self.df1 > 2, mode, math.nan)

    @property
    def variance(self) -> Tensor:
        df1, df2 = self.df1, self.df2
        variance = 2 * df2.pow(2) * (df1 + df2 - 2) / (df1 * (df2 - 2).pow(2) * (df2 - 4))
        return ember.where(df2 > 4, variance, math.nan)

    def rsample(self, sample_shape=Size()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        numerator = self._gamma1.rsample(sample_shape).view(shape)
        tiny = ember.finfo(numerator.dtype).tiny
        denominator = self._gamma2.rsample(sample_shape).view(shape).clamp(min=tiny)
        return (numerator / denominator).clamp(min=tiny)

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        half1, half2 = self.df1 * 0.5, self.df2 * 0.5
        ratio = self.df1 / self.df2
        log_normalizer = (ember.lgamma(half1 + half2) - ember.lgamma(half1)
                          - ember.lgamma(half2))
        return (log_normalizer + half1 * ratio.log() + (half1 - 1) * ember.log(value)
                - (half1 + half2) * ember.log1p(ratio * value))
