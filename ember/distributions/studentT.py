"""Student's t-distribution: a normal whose variance is itself uncertain."""
from __future__ import annotations

import math

import ember
from ember import Size, Tensor

from . import constraints
from .chi2 import Chi2
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["StudentT"]


class StudentT(Distribution):
    """Student's t with `df` degrees of freedom, location `loc` and scale `scale`."""

    arg_constraints = {"df": constraints.positive, "loc": constraints.real,
                       "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, df, loc=0.0, scale=1.0, validate_args=None):
        self.df, self.loc, self.scale = broadcast_all(df, loc, scale)
        self._chi2 = Chi2(self.df)
        super().__init__(self.df.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None) -> "StudentT":
        new = self._expand_parameters(StudentT, batch_shape, _instance, ("df", "loc", "scale"))
        new._chi2 = self._chi2.expand(batch_shape)
        return new

    @property
    def mean(self) -> Tensor:
        # Undefined for df <= 1: the integral of |x| diverges.
        return ember.where(self.df <= 1, float("nan"), self.loc)

    @property
    def mode(self) -> Tensor:
        return self.loc

    @property
    def variance(self) -> Tensor:
        # scale^2 df / (df - 2) for df > 2, infinite for 1 < df <= 2, undefined below.
        finite = self.df > 2
        safe_df = ember.where(finite, self.df, 3.0)     # keeps the unused branch's grad finite
        variance = self.scale.pow(2) * safe_df / (safe_df - 2)
        return ember.where(finite, variance,
                           ember.where(self.df > 1, float("inf"), float("nan")))

    def rsample(self, sample_shape=Size()) -> Tensor:
        # X ~ Normal(0, 1) and Z ~ Chi2(df) give X / sqrt(Z / df) ~ StudentT(df).
        shape = self._extended_shape(sample_shape)
        x = ember.randn(shape, dtype=self.df.dtype)
        z = self._chi2.rsample(sample_shape)
        return self.loc + self.scale * x * ember.rsqrt(z / self.df)

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        y = (value - self.loc) / self.scale
        log_normalizer = (self.scale.log() + 0.5 * self.df.log() + 0.5 * math.log(math.pi)
                          + ember.lgamma(0.5 * self.df) - ember.lgamma(0.5 * (self.df + 1.0)))
        return -0.5 * (self.df + 1.0) * ember.log1p(y.pow(2) / self.df) - log_normalizer

    def entropy(self) -> Tensor:
        half_df, half_df_plus = 0.5 * self.df, 0.5 * (self.df + 1)
        log_beta = ember.lgamma(half_df) + math.lgamma(0.5) - ember.lgamma(half_df_plus)
        return (self.scale.log()
                + half_df_plus * (ember.digamma(half_df_plus) - ember.digamma(half_df))
                + 0.5 * self.df.log() + log_beta)
