"""OneHotCategorical: a Categorical whose samples are one-hot vectors."""
from __future__ import annotations

import ember
from ember import Size, Tensor
from ember.nn.functional import one_hot

from . import constraints
from .categorical import Categorical
from .distribution import Distribution

__all__ = ["OneHotCategorical", "OneHotCategoricalStraightThrough"]


class OneHotCategorical(Distribution):
    """Categorical distribution over one-hot vectors of length K."""

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.one_hot
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        self._categorical = Categorical(probs, logits)
        batch_shape = self._categorical.batch_shape
        event_shape = self._categorical.param_shape[-1:]
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None) -> "OneHotCategorical":
        new = self._expand_parameters(OneHotCategorical, batch_shape, _instance, ())
        new._categorical = self._categorical.expand(new.batch_shape)
        return new

    @property
    def _param(self) -> Tensor:
        return self._categorical._param

    @property
    def probs(self) -> Tensor:
        return self._categorical.probs

    @property
    def logits(self) -> Tensor:
        return self._categorical.logits

    @property
    def mean(self) -> Tensor:
        return self._categorical.probs

    @property
    def mode(self) -> Tensor:
        probs = self._categorical.probs
        return one_hot(probs.argmax(dim=-1), probs.shape[-1]).to(probs)

    @property
    def variance(self) -> Tensor:
        probs = self._categorical.probs
        return probs * (1 - probs)

    @property
    def param_shape(self) -> Size:
        return self._categorical.param_shape

    def sample(self, sample_shape=Size()) -> Tensor:
        probs = self._categorical.probs
        indices = self._categorical.sample(sample_shape)
        return one_hot(indices, self._categorical._num_events).to(probs)

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        indices = value.max(-1)[1]
        return self._categorical.log_prob(indices)

    def entropy(self) -> Tensor:
        return self._categorical.entropy()

    def enumerate_support(self, expand: bool = True) -> Tensor:
        n = self.event_shape[0]
        values = ember.eye(n, dtype=self._param.dtype)
        values = values.view((n,) + (1,) * len(self.batch_shape) + (n,))
        if expand:
            values = values.expand((n,) + self.batch_shape + (n,))
        return values


class OneHotCategoricalStraightThrough(OneHotCategorical):
    """OneHotCategorical whose rsample passes gradients "straight through" (Bengio et al.,
    2013): the value is a one-hot sample, the gradient is that of the probabilities."""

    has_rsample = True

    def rsample(self, sample_shape=Size()) -> Tensor:
        samples = self.sample(sample_shape)
        probs = self._categorical.probs
        return samples + (probs - probs.detach())
