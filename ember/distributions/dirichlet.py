"""Dirichlet distribution over the probability simplex."""
from __future__ import annotations

import ember
from ember import Size, Tensor
from ember.nn.functional import one_hot

from . import constraints
from .distribution import Distribution
from .gamma import _standard_gamma

__all__ = ["Dirichlet"]


class Dirichlet(Distribution):
    """Dirichlet distribution with positive `concentration` vectors (last dimension)."""

    arg_constraints = {"concentration": constraints.independent(constraints.positive, 1)}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, concentration: Tensor, validate_args=None):
        if concentration.dim() < 1:
            raise ValueError("`concentration` parameter must be at least one-dimensional.")
        self.concentration = concentration
        batch_shape, event_shape = concentration.shape[:-1], concentration.shape[-1:]
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None) -> "Dirichlet":
        return self._expand_parameters(Dirichlet, batch_shape, _instance, ("concentration",),
                                       self._event_shape)

    def rsample(self, sample_shape=Size()) -> Tensor:
        # Normalised independent gamma draws are Dirichlet; gradients flow through each
        # gamma draw's implicit reparameterization.
        shape = self._extended_shape(sample_shape)
        gammas = _standard_gamma(self.concentration.expand(shape))
        return gammas / gammas.sum(-1, keepdim=True)

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        concentration = self.concentration
        return (ember.xlogy(concentration - 1.0, value).sum(-1)
                + ember.lgamma(concentration.sum(-1)) - ember.lgamma(concentration).sum(-1))

    @property
    def mean(self) -> Tensor:
        return self.concentration / self.concentration.sum(-1, True)

    @property
    def mode(self) -> Tensor:
        excess = (self.concentration - 1).clamp(min=0.0)
        mode = excess / excess.sum(-1, True)
        # When every concentration is below 1 the density peaks at a vertex of the simplex.
        all_below_one = (self.concentration < 1).all(dim=-1, keepdim=True)
        vertex = one_hot(mode.argmax(dim=-1), excess.shape[-1]).to(mode)
        return ember.where(all_below_one, vertex, mode)

    @property
    def variance(self) -> Tensor:
        total = self.concentration.sum(-1, True)
        return (self.concentration * (total - self.concentration)
                / (total.pow(2) * (total + 1)))

    def entropy(self) -> Tensor:
        k = self.concentration.size(-1)
        total = self.concentration.sum(-1)
        return (ember.lgamma(self.concentration).sum(-1) - ember.lgamma(total)
                - (k - total) * ember.digamma(total)
                - ((self.concentration - 1.0) * ember.digamma(self.concentration)).sum(-1))
