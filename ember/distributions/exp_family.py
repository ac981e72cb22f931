"""ExponentialFamily: base class of densities exp(<t(x), theta> - F(theta) + k(x)).

With the natural parameters theta and the log normaliser F, entropy and KL divergence
follow from autograd (Nielsen & Nock): H = F(theta) - <theta, grad F(theta)> - E[k(X)].
Subclasses define `_natural_params`, `_log_normalizer` and `_mean_carrier_measure`.
"""
from __future__ import annotations

import ember
from ember import Tensor

from .distribution import Distribution

__all__ = ["ExponentialFamily"]


class ExponentialFamily(Distribution):
    """Distributions of an exponential family; entropy computed from the log normaliser."""

    @property
    def _natural_params(self) -> tuple:
        """The natural parameters theta, as a tuple of tensors."""
        raise NotImplementedError

    def _log_normalizer(self, *natural_params) -> Tensor:
        """F(theta), the log of the normalising constant."""
        raise NotImplementedError

    @property
    def _mean_carrier_measure(self) -> float:
        """E[k(X)], the expected carrier measure."""
        raise NotImplementedError

    def entropy(self) -> Tensor:
        params = [p.detach().requires_grad_() for p in self._natural_params]
        log_normalizer = self._log_normalizer(*params)
        # grad F(theta) is the mean of the sufficient statistic.
        gradients = ember.autograd.grad(log_normalizer.sum(), params, create_graph=True)
        result = log_normalizer - self._mean_carrier_measure
        for param, gradient in zip(params, gradients):
            result = result - (param * gradient).reshape(self._batch_shape + (-1,)).sum(-1)
        return result
