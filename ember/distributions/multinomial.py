"""Multinomial distribution: counts per category over `total_count` categorical draws."""
from __future__ import annotations

import math

import ember
from ember import Size, Tensor
from ember.nn.functional import one_hot

from . import constraints
from .binomial import Binomial
from .categorical import Categorical
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["Multinomial"]


class _CategoricalParameters:
    """probs, logits and param_shape of a distribution built on `self._categorical`."""

    @property
    def logits(self) -> Tensor:
        return self._categorical.logits

    @property
    def probs(self) -> Tensor:
        return self._categorical.probs

    @property
    def param_shape(self) -> Size:
        return self._categorical.param_shape


class Multinomial(_CategoricalParameters, Distribution):
    """Counts of each of K categories (last dimension of `probs` or `logits`) in
    `total_count` independent draws.

    sample() needs the one shared integer `total_count`; log_prob scores count vectors
    of any total.
    """

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}

    def __init__(self, total_count: int = 1, probs=None, logits=None, validate_args=None):
        if not isinstance(total_count, int):
            raise NotImplementedError("inhomogeneous total_count is not supported")
        self.total_count = total_count
        self._categorical = Categorical(probs=probs, logits=logits)
        self._binomial = Binomial(total_count=total_count, probs=self.probs)
        batch_shape = self._categorical.batch_shape
        event_shape = self._categorical.param_shape[-1:]
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None) -> "Multinomial":
        new = self._expand_parameters(Multinomial, batch_shape, _instance, ())
        new.total_count = self.total_count
        new._categorical = self._categorical.expand(new.batch_shape)
        new._binomial = Binomial(total_count=self.total_count, probs=new.probs)
        return new

    @constraints.dependent_property(is_discrete=True, event_dim=1)
    def support(self):
        return constraints.multinomial(self.total_count)

    @property
    def mean(self) -> Tensor:
        return self.probs * self.total_count

    @property
    def variance(self) -> Tensor:
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, sample_shape=Size()) -> Tensor:
        sample_shape = Size(sample_shape)
        draws = self._categorical.sample(Size((self.total_count,)) + sample_shape)
        counts = one_hot(draws, self._categorical._num_events).sum(0)
        return counts.reshape(self._extended_shape(sample_shape)).type_as(self.probs)

    def entropy(self) -> Tensor:
        # H = n H(categorical) - log n! + sum_k E[log x_k!], each x_k ~ Binomial(n, p_k).
        n = self.total_count
        term1 = n * self._categorical.entropy() - math.lgamma(n + 1)
        support = self._binomial.enumerate_support(expand=False)[1:]
        binomial_probs = ember.exp(self._binomial.log_prob(support))
        term2 = (binomial_probs * ember.lgamma(support + 1)).sum([0, -1])
        return term1 + term2

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        log_factorial_n = ember.lgamma(value.sum(-1) + 1)
        log_factorial_xs = ember.lgamma(value + 1).sum(-1)
        # A category of probability 0 that was never drawn contributes 0 * -inf := 0.
        logits = ember.where((value == 0) & (logits == float("-inf")), 0.0, logits)
        log_powers = (logits * value).sum(-1)
        return log_factorial_n - log_factorial_xs + log_powers
