"""Negative binomial distribution: successes before `total_count` failures."""
from __future__ import annotations

import ember
from ember import Size, Tensor
from ember.nn.functional import logsigmoid

from . import constraints
from .binomial import _CountedTrials
from .gamma import Gamma
from .utils import lazy_property

__all__ = ["NegativeBinomial"]


class NegativeBinomial(_CountedTrials):
    """Successes in independent trials of success probability `probs` (or log-odds
    `logits`) before `total_count` failures; total_count may be any real >= 0."""

    arg_constraints = {"total_count": constraints.greater_than_eq(0),
                       "probs": constraints.half_open_interval(0.0, 1.0),
                       "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, total_count, probs=None, logits=None, validate_args=None):
        super().__init__(total_count, probs, logits, validate_args)

    @property
    def mean(self) -> Tensor:
        return self.total_count * ember.exp(self.logits)

    @property
    def mode(self) -> Tensor:
        return ((self.total_count - 1) * self.logits.exp()).floor().clamp(min=0.0)

    @property
    def variance(self) -> Tensor:
        return self.mean / ember.sigmoid(-self.logits)

    @lazy_property
    def _gamma(self) -> Gamma:
        # A Poisson whose rate is Gamma(total_count, (1 - p) / p) distributed.
        return Gamma(concentration=self.total_count, rate=ember.exp(-self.logits),
                     validate_args=False)

    def sample(self, sample_shape=Size()) -> Tensor:
        with ember.no_grad():
            rate = self._gamma.sample(sample_shape=sample_shape)
            return ember.poisson(rate)

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        log_unnormalized_prob = (self.total_count * logsigmoid(-self.logits)
                                 + value * logsigmoid(self.logits))
        log_normalization = (-ember.lgamma(self.total_count + value) + ember.lgamma(1.0 + value)
                             + ember.lgamma(self.total_count))
        # total_count = 0 puts all mass on 0: lgamma(0) terms cancel to log 1 = 0.
        log_normalization = log_normalization.masked_fill(self.total_count + value == 0.0, 0.0)
        return log_unnormalized_prob - log_normalization
