"""MixtureSameFamily: a weighted mixture of k components of one distribution family.

The component distribution's rightmost batch dimension (size k) indexes the components;
a Categorical over k picks one. The mixture's batch_shape is the component batch_shape
without that dimension, and its event_shape is the components' event_shape.
"""
from __future__ import annotations

import ember
from ember import Size, Tensor

from . import constraints
from .categorical import Categorical
from .distribution import Distribution

__all__ = ["MixtureSameFamily"]


def _check_batch_shapes(mixture_batch: Size, component_batch: Size) -> None:
    for size1, size2 in zip(reversed(mixture_batch), reversed(component_batch)):
        if size1 != 1 and size2 != 1 and size1 != size2:
            raise ValueError(f"`mixture_distribution.batch_shape` ({mixture_batch}) is not "
                             f"compatible with `component_distribution.batch_shape`"
                             f"({component_batch})")


class MixtureSameFamily(Distribution):
    """Mixture of the components of `component_distribution` with weights given by
    `mixture_distribution` (a Categorical over the rightmost component batch dim)."""

    arg_constraints: dict = {}
    has_rsample = False

    def __init__(self, mixture_distribution: Categorical,
                 component_distribution: Distribution, validate_args=None):
        self._mixture_distribution = mixture_distribution
        self._component_distribution = component_distribution
        if not isinstance(mixture_distribution, Categorical):
            raise ValueError(" The Mixture distribution needs to be an  instance of "
                             "torch.distributions.Categorical")
        if not isinstance(component_distribution, Distribution):
            raise ValueError("The Component distribution needs to be an instance of "
                             "torch.distributions.Distribution")
        component_batch = component_distribution.batch_shape[:-1]
        _check_batch_shapes(mixture_distribution.batch_shape, component_batch)
        km = mixture_distribution.logits.shape[-1]
        kc = component_distribution.batch_shape[-1]
        if km != kc:
            raise ValueError(f"`mixture_distribution component` ({km}) does not equal "
                             f"`component_distribution.batch_shape[-1]` ({kc})")
        self._num_component = km
        event_shape = component_distribution.event_shape
        self._event_ndims = len(event_shape)
        super().__init__(component_batch, event_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None) -> "MixtureSameFamily":
        new = self._expand_parameters(MixtureSameFamily, batch_shape, _instance, ())
        new._component_distribution = self._component_distribution.expand(
            new.batch_shape + (self._num_component,))
        new._mixture_distribution = self._mixture_distribution.expand(new.batch_shape)
        new._num_component = self._num_component
        new._event_ndims = self._event_ndims
        return new

    @constraints.dependent_property
    def support(self):
        return constraints.MixtureSameFamilyConstraint(self._component_distribution.support)

    @property
    def mixture_distribution(self) -> Categorical:
        return self._mixture_distribution

    @property
    def component_distribution(self) -> Distribution:
        return self._component_distribution

    def _weights(self) -> Tensor:
        """Mixture probabilities shaped to broadcast against per-component event values."""
        probs = self.mixture_distribution.probs
        return probs.reshape(probs.shape + (1,) * self._event_ndims)

    def _component_dim(self) -> int:
        return -1 - self._event_ndims

    @property
    def mean(self) -> Tensor:
        return (self._weights() * self.component_distribution.mean).sum(self._component_dim())

    @property
    def variance(self) -> Tensor:
        # Law of total variance: E[Var(X | component)] + Var(E[X | component]).
        weights, component = self._weights(), self.component_distribution
        mean_of_variances = (weights * component.variance).sum(self._component_dim())
        spread = (component.mean - self._pad(self.mean)).pow(2)
        variance_of_means = (weights * spread).sum(self._component_dim())
        return mean_of_variances + variance_of_means

    def cdf(self, x: Tensor) -> Tensor:
        cdf_x = self.component_distribution.cdf(self._pad(x))
        return (cdf_x * self.mixture_distribution.probs).sum(-1)

    def log_prob(self, x: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(x)
        log_prob_x = self.component_distribution.log_prob(self._pad(x))    # S + B + (k,)
        log_mix_prob = ember.log_softmax(self.mixture_distribution.logits, dim=-1)
        return ember.logsumexp(log_prob_x + log_mix_prob, dim=-1)

    def sample(self, sample_shape=Size()) -> Tensor:
        with ember.no_grad():
            component_dim = len(sample_shape) + len(self.batch_shape)
            choice = self.mixture_distribution.sample(sample_shape)      # S + B
            samples = self.component_distribution.sample(sample_shape)  # S + B + (k,) + E
            event_shape = self.event_shape
            index = choice.reshape(choice.shape + (1,) * (len(event_shape) + 1))
            index = index.expand(choice.shape + (1,) + event_shape)
            return samples.gather(component_dim, index).squeeze(component_dim)

    def _pad(self, x: Tensor) -> Tensor:
        """Insert the component dimension in front of the event dimensions."""
        return x.unsqueeze(self._component_dim())

    def __repr__(self) -> str:
        return (f"MixtureSameFamily(\n  {self.mixture_distribution},\n"
                f"  {self.component_distribution})")
