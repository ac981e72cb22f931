"""Continuous Bernoulli distribution on [0, 1] (Loaiza-Ganem & Cunningham, 2019): density
C(p) p^x (1 - p)^(1 - x), the Bernoulli likelihood made a proper density on the interval.

Near p = 1/2 the closed forms divide 0 by 0, so inside `lims` the quantities use Taylor
expansions around 1/2 and the closed forms are evaluated at a safe stand-in probability.
"""
from __future__ import annotations

import math

import ember
from ember import Size, Tensor
from ember.nn.functional import binary_cross_entropy_with_logits

from . import constraints
from .bernoulli import _check_exactly_one
from .exp_family import ExponentialFamily
from .utils import broadcast_all, clamp_probs, lazy_property, logits_to_probs, probs_to_logits

__all__ = ["ContinuousBernoulli"]


class ContinuousBernoulli(ExponentialFamily):
    """Continuous Bernoulli parametrised by `probs` or by `logits`; `lims` is the interval
    around 1/2 where Taylor expansions replace the unstable closed forms."""

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    has_rsample = True
    _mean_carrier_measure = 0

    def __init__(self, probs=None, logits=None, lims=(0.499, 0.501), validate_args=None):
        _check_exactly_one(probs, logits)
        if probs is not None:
            (probs,) = broadcast_all(probs)
            if validate_args is not None and not self.arg_constraints["probs"].check(
                    probs).all():
                raise ValueError("The parameter probs has invalid values")
            self.probs = clamp_probs(probs)
        else:
            (self.logits,) = broadcast_all(logits)
        self._param = self.probs if probs is not None else self.logits
        self._lims = lims
        super().__init__(self._param.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None) -> "ContinuousBernoulli":
        new = self._expand_parameters(ContinuousBernoulli, batch_shape, _instance,
                                      ("probs", "logits"))
        new._param = new.logits if "logits" in self.__dict__ else new.probs
        new._lims = self._lims
        return new

    @lazy_property
    def logits(self) -> Tensor:
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self) -> Tensor:
        return clamp_probs(logits_to_probs(self.logits, is_binary=True))

    @property
    def param_shape(self) -> Size:
        return self._param.size()

    def _outside_unstable_region(self) -> Tensor:
        return (self.probs <= self._lims[0]) | (self.probs > self._lims[1])

    def _cut_probs(self) -> Tensor:
        """probs, with the unstable ones replaced by lims[0] (their results are discarded)."""
        return ember.where(self._outside_unstable_region(), self.probs,
                           ember.full_like(self.probs, self._lims[0]))

    def _stable(self, closed_form: Tensor, taylor: Tensor) -> Tensor:
        return ember.where(self._outside_unstable_region(), closed_form, taylor)

    def _log_odds_of_cut(self) -> Tensor:
        """log(1 - p) - log(p) at the cut probabilities."""
        p = self._cut_probs()
        return ember.log1p(-p) - ember.log(p)

    def _cont_bern_log_norm(self) -> Tensor:
        """log C(p), the log normalising constant: log(|log((1-p)/p)| / |1 - 2p|)."""
        p = self._cut_probs()
        # Keep each log's argument valid on the side of 1/2 where it is not used.
        below_half = ember.where(p <= 0.5, p, ember.zeros_like(p))
        above_half = ember.where(p >= 0.5, p, ember.ones_like(p))
        log_abs_denominator = ember.where(p <= 0.5, ember.log1p(-2.0 * below_half),
                                          ember.log(2.0 * above_half - 1.0))
        log_norm = ember.log(ember.abs(self._log_odds_of_cut())) - log_abs_denominator
        x = (self.probs - 0.5).pow(2)
        return self._stable(log_norm, math.log(2.0) + (4.0 / 3.0 + 104.0 / 45.0 * x) * x)

    @property
    def mean(self) -> Tensor:
        p = self._cut_probs()
        closed_form = p / (2.0 * p - 1.0) + 1.0 / self._log_odds_of_cut()
        x = self.probs - 0.5
        return self._stable(closed_form, 0.5 + (1.0 / 3.0 + 16.0 / 45.0 * x.pow(2)) * x)

    @property
    def variance(self) -> Tensor:
        p = self._cut_probs()
        closed_form = p * (p - 1.0) / (1.0 - 2.0 * p).pow(2) + self._log_odds_of_cut().pow(-2)
        x = (self.probs - 0.5).pow(2)
        return self._stable(closed_form, 1.0 / 12.0 - (1.0 / 15.0 - 128.0 / 945.0 * x) * x)

    def sample(self, sample_shape=Size()) -> Tensor:
        with ember.no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape=Size()) -> Tensor:
        u = ember.rand(self._extended_shape(sample_shape), dtype=self.probs.dtype)
        return self.icdf(u)

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        bernoulli = -binary_cross_entropy_with_logits(logits, value, reduction="none")
        return bernoulli + self._cont_bern_log_norm()

    def cdf(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        p = self._cut_probs()
        closed_form = (p.pow(value) * (1.0 - p).pow(1.0 - value) + p - 1.0) / (2.0 * p - 1.0)
        inside = self._stable(closed_form, value)
        return ember.where(value <= 0.0, ember.zeros_like(value),
                           ember.where(value >= 1.0, ember.ones_like(value), inside))

    def icdf(self, value: Tensor) -> Tensor:
        p = self._cut_probs()
        closed_form = ((ember.log1p(-p + value * (2.0 * p - 1.0)) - ember.log1p(-p))
                       / (ember.log(p) - ember.log1p(-p)))
        return self._stable(closed_form, value)

    def entropy(self) -> Tensor:
        log_p0, log_p1 = ember.log1p(-self.probs), ember.log(self.probs)
        return self.mean * (log_p0 - log_p1) - self._cont_bern_log_norm() - log_p0

    @property
    def _natural_params(self) -> tuple:
        return (self.logits,)

    def _log_normalizer(self, x: Tensor) -> Tensor:
        """F(theta) = log((exp(theta) - 1) / theta), by its Taylor series near theta = 0."""
        outside = (x <= self._lims[0] - 0.5) | (x > self._lims[1] - 0.5)
        cut = ember.where(outside, x, ember.full_like(x, self._lims[0] - 0.5))
        log_norm = ember.log(ember.abs(ember.expm1(cut))) - ember.log(ember.abs(cut))
        taylor = 0.5 * x + x.pow(2) / 24.0 - x.pow(4) / 2880.0
        return ember.where(outside, log_norm, taylor)
