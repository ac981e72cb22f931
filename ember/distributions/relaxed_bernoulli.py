"""Relaxed (Concrete / Gumbel-softmax) Bernoulli: a continuous, reparameterizable
stand-in for a Bernoulli draw, sharper as the `temperature` goes to 0.

Maddison et al., "The Concrete Distribution" (2017); Jang et al., "Categorical
Reparametrization with Gumbel-Softmax" (2017).
"""
from __future__ import annotations

import ember
from ember import Size, Tensor

from . import constraints
from .bernoulli import Bernoulli
from .distribution import Distribution
from .geometric import _store_probs_or_logits
from .transformed_distribution import TransformedDistribution
from .transforms import SigmoidTransform
from .utils import broadcast_all, clamp_probs

__all__ = ["LogitRelaxedBernoulli", "RelaxedBernoulli"]


class LogitRelaxedBernoulli(Distribution):
    """The logit of a RelaxedBernoulli sample: (logistic noise + logits) / temperature."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.real

    def __init__(self, temperature: Tensor, probs=None, logits=None, validate_args=None):
        self.temperature = temperature
        self._param = _store_probs_or_logits(self, probs, logits)
        super().__init__(self._param.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None) -> "LogitRelaxedBernoulli":
        new = self._expand_parameters(LogitRelaxedBernoulli, batch_shape, _instance,
                                      ("probs", "logits"))
        new.temperature = self.temperature
        new._param = new.logits if "logits" in self.__dict__ else new.probs
        return new

    logits = Bernoulli.logits
    probs = Bernoulli.probs
    param_shape = Bernoulli.param_shape

    def rsample(self, sample_shape=Size()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        probs = clamp_probs(self.probs.expand(shape))
        uniforms = clamp_probs(ember.rand(shape, dtype=probs.dtype))
        logistic_noise = uniforms.log() - (-uniforms).log1p()
        return (logistic_noise + probs.log() - (-probs).log1p()) / self.temperature

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        diff = logits - value.mul(self.temperature)
        return self.temperature.log() + diff - 2 * diff.exp().log1p()


class _RelaxedParameters:
    """The parameters of a relaxed distribution live on its base distribution."""

    @property
    def temperature(self) -> Tensor:
        return self.base_dist.temperature

    @property
    def logits(self) -> Tensor:
        return self.base_dist.logits

    @property
    def probs(self) -> Tensor:
        return self.base_dist.probs


class RelaxedBernoulli(_RelaxedParameters, TransformedDistribution):
    """Values in (0, 1): the sigmoid of a LogitRelaxedBernoulli sample."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, temperature: Tensor, probs=None, logits=None, validate_args=None):
        base_dist = LogitRelaxedBernoulli(temperature, probs, logits)
        super().__init__(base_dist, SigmoidTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None) -> "RelaxedBernoulli":
        new = self._get_checked_instance(RelaxedBernoulli, _instance)
        return super().expand(batch_shape, _instance=new)
