"""Geometric distribution: the number of failures before the first success."""
from __future__ import annotations

import ember
from ember import Size, Tensor
from ember.nn.functional import binary_cross_entropy_with_logits

from . import constraints
from .bernoulli import Bernoulli, _check_exactly_one
from .distribution import Distribution
from .utils import _as_text, broadcast_all

__all__ = ["Geometric"]


def _store_probs_or_logits(dist: Distribution, probs, logits) -> Tensor:
    """Set dist.probs or dist.logits (exactly one must be given) as a tensor; return it."""
    _check_exactly_one(probs, logits)
    if probs is not None:
        (dist.probs,) = broadcast_all(probs)
        return dist.probs
    (dist.logits,) = broadcast_all(logits)
    return dist.logits


class Geometric(Distribution):
    """P(X = k) = (1 - p)^k p for k = 0, 1, ..., with success probability `probs` in (0, 1]
    (or log-odds `logits`).

    Note: Tensor.geometric_ counts the trials including the success (values 1, 2, ...);
    this distribution counts the failures only (values 0, 1, ...).
    """

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, probs=None, logits=None, validate_args=None):
        param = _store_probs_or_logits(self, probs, logits)
        super().__init__(param.size(), validate_args=validate_args)
        if self._validate_args and probs is not None:
            self._check_probs_positive()

    def _check_probs_positive(self) -> None:
        """unit_interval admits 0, but with p = 0 no success ever comes."""
        valid = self.probs > 0
        if not valid.all():
            raise ValueError(
                f"Expected parameter probs ({type(self.probs).__name__} of shape "
                f"{tuple(self.probs.shape)}) of distribution {self!r} to be positive but "
                f"found invalid values:\n{_as_text(self.probs.detach()[~valid])}")

    def expand(self, batch_shape, _instance=None) -> "Geometric":
        return self._expand_parameters(Geometric, batch_shape, _instance, ("probs", "logits"))

    # The same lazy conversions between probs and logits as a Bernoulli trial.
    logits = Bernoulli.logits
    probs = Bernoulli.probs

    @property
    def mean(self) -> Tensor:
        return 1.0 / self.probs - 1.0

    @property
    def mode(self) -> Tensor:
        return ember.zeros_like(self.probs)

    @property
    def variance(self) -> Tensor:
        return (1.0 / self.probs - 1.0) / self.probs

    def sample(self, sample_shape=Size()) -> Tensor:
        # Inverse CDF: floor(log U / log(1 - p)) for U uniform on (0, 1].
        shape = self._extended_shape(sample_shape)
        tiny = ember.finfo(self.probs.dtype).tiny
        with ember.no_grad():
            u = ember.empty(shape, dtype=self.probs.dtype).uniform_(tiny, 1)
            return (u.log() / (-self.probs).log1p()).floor()

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        value, probs = broadcast_all(value, self.probs)
        # p = 1 and k = 0: 0 * log(0) must count as 0, not nan.
        probs = ember.where((probs == 1) & (value == 0), 0.0, probs)
        return value * (-probs).log1p() + self.probs.log()

    def entropy(self) -> Tensor:
        bernoulli_entropy = binary_cross_entropy_with_logits(self.logits, self.probs,
                                                             reduction="none")
        return bernoulli_entropy / self.probs
