"""Shared inputs and helpers for the distribution tests: parameter arrays drawn inside each
parameter's constraint, so torch and ember see identical valid values; both libraries'
distributions under one namespace each; and the comparisons most test files make."""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import torch
import torch.distributions.relaxed_bernoulli
import torch.distributions.relaxed_categorical

import ember.distributions
from ember.distributions.relaxed_bernoulli import LogitRelaxedBernoulli
from ember.distributions.relaxed_categorical import ExpRelaxedCategorical

DTYPES = ["float32", "float64"]

# How to draw an array of each kind of parameter or value.
KINDS = {
    "real": lambda r, shape: r.standard_normal(shape),
    "positive": lambda r, shape: r.uniform(0.5, 2.5, shape),
    "unit": lambda r, shape: r.uniform(0.05, 0.95, shape),
    "low": lambda r, shape: r.uniform(-2.0, -1.0, shape),
    "high": lambda r, shape: r.uniform(1.0, 2.0, shape),
    "inner": lambda r, shape: r.uniform(-0.9, 0.9, shape),
    "above_scale": lambda r, shape: r.uniform(0.5, 2.5, shape) + 2.0,  # above any "positive"
    "wide": lambda r, shape: r.uniform(0.5, 8.0, shape),       # both sides of 1, 2 and 4
    "large": lambda r, shape: r.uniform(4.5, 9.0, shape),      # every moment finite
    "angle": lambda r, shape: r.uniform(-4.0, 4.0, shape),
    # probabilities at and around 1/2, where ContinuousBernoulli switches formulas
    "probs": lambda r, shape: r.choice([0.1, 0.3, 0.4995, 0.5, 0.5005, 0.8], shape),
    # GeneralizedPareto tails: bounded (< 0), exponential (0), infinite mean (> 1)
    "tail": lambda r, shape: r.choice([-0.1, 0.0, 0.2, 0.45, 0.7, 1.2], shape),
}


def draw(kind: str, shape: tuple, dtype: str, seed: int = 0) -> np.ndarray:
    return np.asarray(KINDS[kind](np.random.default_rng(seed), shape)).astype(dtype)


def draw_all(kinds, shapes, dtype: str, seed: int = 0) -> list:
    return [draw(kind, shape, dtype, seed + i) for i, (kind, shape) in enumerate(zip(kinds,
                                                                                     shapes))]


def evaluate(dist, quantity: str, value=None):
    """dist's `quantity`: a method of the value (log_prob, cdf, icdf), a method without
    arguments (entropy, perplexity), or a property (mean, variance, probs, ...)."""
    if quantity in ("log_prob", "cdf", "icdf"):
        return getattr(dist, quantity)(value)
    if quantity in ("entropy", "perplexity"):
        return getattr(dist, quantity)()
    return getattr(dist, quantity)


_TORCH = SimpleNamespace(
    **vars(torch.distributions),
    LogitRelaxedBernoulli=torch.distributions.relaxed_bernoulli.LogitRelaxedBernoulli,
    ExpRelaxedCategorical=torch.distributions.relaxed_categorical.ExpRelaxedCategorical)
_EMBER = SimpleNamespace(**vars(ember.distributions),
                         LogitRelaxedBernoulli=LogitRelaxedBernoulli,
                         ExpRelaxedCategorical=ExpRelaxedCategorical)


def dists(lib):
    """torch.distributions or ember.distributions, plus the two relaxed base classes torch
    keeps in their modules only."""
    return _TORCH if lib is torch else _EMBER


def assert_like_torch(t, e, expanded_shape=(5, 2)) -> None:
    """Distribution `e` (ember) has the shapes, flags, reprs and constraint names of `t`
    (torch), and so do both expanded to `expanded_shape`."""
    assert tuple(e.batch_shape) == tuple(t.batch_shape)
    assert tuple(e.event_shape) == tuple(t.event_shape)
    assert e.has_rsample == t.has_rsample
    assert e.has_enumerate_support == t.has_enumerate_support
    assert repr(e) == repr(t)
    assert repr(e.support) == repr(t.support)
    assert list(e.arg_constraints) == list(t.arg_constraints)
    te, ee = t.expand(expanded_shape), e.expand(expanded_shape)
    assert type(ee) is type(e)
    assert tuple(ee.batch_shape) == tuple(te.batch_shape) == expanded_shape
    assert tuple(ee.sample((3,)).shape) == tuple(te.sample((3,)).shape)
    assert repr(ee) == repr(te)
