"""Binomial distribution: successes in `total_count` independent Bernoulli trials."""
from __future__ import annotations

import ember
from ember import Size, Tensor

from . import constraints
from .bernoulli import Bernoulli, _check_exactly_one
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["Binomial"]


def _clamp_by_zero(x: Tensor) -> Tensor:
    """max(x, 0) whose gradient at exactly 0 is 1/2, as in torch."""
    return (x.clamp(min=0) + x - x.clamp(max=0)) / 2


class _CountedTrials(Distribution):
    """A count `total_count` with the success probability `probs` (or log-odds `logits`)
    of each Bernoulli trial: the parameters of Binomial and NegativeBinomial."""

    def __init__(self, total_count, probs, logits, validate_args):
        _check_exactly_one(probs, logits)
        if probs is not None:
            self.total_count, self.probs = broadcast_all(total_count, probs)
            self.total_count = self.total_count.type_as(self.probs)
        else:
            self.total_count, self.logits = broadcast_all(total_count, logits)
            self.total_count = self.total_count.type_as(self.logits)
        self._param = self.probs if probs is not None else self.logits
        super().__init__(self._param.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None) -> "_CountedTrials":
        new = self._expand_parameters(type(self), batch_shape, _instance,
                                      ("total_count", "probs", "logits"))
        new._param = new.logits if "logits" in self.__dict__ else new.probs
        return new

    # Each trial is a Bernoulli: the same lazy conversions between probs and logits.
    logits = Bernoulli.logits
    probs = Bernoulli.probs
    param_shape = Bernoulli.param_shape


class Binomial(_CountedTrials):
    """Binomial distribution with `total_count` trials of success probability `probs`
    (or log-odds `logits`)."""

    arg_constraints = {"total_count": constraints.nonnegative_integer,
                       "probs": constraints.unit_interval, "logits": constraints.real}
    has_enumerate_support = True

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        super().__init__(total_count, probs, logits, validate_args)

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self):
        return constraints.integer_interval(0, self.total_count)

    @property
    def mean(self) -> Tensor:
        return self.total_count * self.probs

    @property
    def mode(self) -> Tensor:
        return ((self.total_count + 1) * self.probs).floor().clamp(max=self.total_count)

    @property
    def variance(self) -> Tensor:
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, sample_shape=Size()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        with ember.no_grad():
            return ember.binomial(self.total_count.expand(shape).to(self.probs.dtype),
                                  self.probs.expand(shape))

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        log_factorial_n = ember.lgamma(self.total_count + 1)
        log_factorial_k = ember.lgamma(value + 1)
        log_factorial_nmk = ember.lgamma(self.total_count - value + 1)
        # n log(1 + e^logits), written so that it cannot overflow.
        normalize_term = (self.total_count * _clamp_by_zero(self.logits)
                          + self.total_count * ember.log1p(ember.exp(-ember.abs(self.logits)))
                          - log_factorial_n)
        return value * self.logits - normalize_term - log_factorial_k - log_factorial_nmk

    def _homogeneous_total_count(self, method: str) -> int:
        total_count = int(self.total_count.max())
        if not self.total_count.min() == total_count:
            raise NotImplementedError(f"Inhomogeneous total count not supported by `{method}`.")
        return total_count

    def entropy(self) -> Tensor:
        self._homogeneous_total_count("entropy")
        log_prob = self.log_prob(self.enumerate_support(False))
        return -(ember.exp(log_prob) * log_prob).sum(0)

    def enumerate_support(self, expand: bool = True) -> Tensor:
        total_count = self._homogeneous_total_count("enumerate_support")
        values = ember.arange(1 + total_count, dtype=self._param.dtype)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        if expand:
            values = values.expand((-1,) + self._batch_shape)
        return values
