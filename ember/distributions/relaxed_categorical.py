"""Relaxed (Concrete / Gumbel-softmax) one-hot categorical: a continuous point on the
simplex that approaches a one-hot vector as the `temperature` goes to 0.

Maddison et al., "The Concrete Distribution" (2017); Jang et al., "Categorical
Reparametrization with Gumbel-Softmax" (2017).
"""
from __future__ import annotations

import math

import ember
from ember import Size, Tensor

from . import constraints
from .categorical import Categorical
from .distribution import Distribution
from .multinomial import _CategoricalParameters
from .relaxed_bernoulli import _RelaxedParameters
from .transformed_distribution import TransformedDistribution
from .transforms import ExpTransform
from .utils import broadcast_all, clamp_probs

__all__ = ["ExpRelaxedCategorical", "RelaxedOneHotCategorical"]


class ExpRelaxedCategorical(_CategoricalParameters, Distribution):
    """The log of a RelaxedOneHotCategorical sample: log_softmax((logits + Gumbel noise)
    / temperature)."""

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.real_vector     # really a submanifold: logsumexp(x) = 0
    has_rsample = True

    def __init__(self, temperature: Tensor, probs=None, logits=None, validate_args=None):
        self._categorical = Categorical(probs, logits)
        self.temperature = temperature
        batch_shape = self._categorical.batch_shape
        event_shape = self._categorical.param_shape[-1:]
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None) -> "ExpRelaxedCategorical":
        new = self._expand_parameters(ExpRelaxedCategorical, batch_shape, _instance, ())
        new.temperature = self.temperature
        new._categorical = self._categorical.expand(new.batch_shape)
        return new

    def rsample(self, sample_shape=Size()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        uniforms = clamp_probs(ember.rand(shape, dtype=self.logits.dtype))
        gumbels = -((-(uniforms.log())).log())
        scores = (self.logits + gumbels) / self.temperature
        return scores - scores.logsumexp(dim=-1, keepdim=True)

    def log_prob(self, value: Tensor) -> Tensor:
        k = self._categorical._num_events
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        log_scale = math.lgamma(k) + (k - 1) * self.temperature.log()
        score = logits - value.mul(self.temperature)
        score = (score - score.logsumexp(dim=-1, keepdim=True)).sum(-1)
        return score + log_scale


class RelaxedOneHotCategorical(_RelaxedParameters, TransformedDistribution):
    """Points on the simplex: exp of an ExpRelaxedCategorical sample."""

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, temperature: Tensor, probs=None, logits=None, validate_args=None):
        base_dist = ExpRelaxedCategorical(temperature, probs, logits,
                                          validate_args=validate_args)
        super().__init__(base_dist, ExpTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None) -> "RelaxedOneHotCategorical":
        new = self._get_checked_instance(RelaxedOneHotCategorical, _instance)
        return super().expand(batch_shape, _instance=new)
