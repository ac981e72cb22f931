"""torch's and ember's distributions under one namespace each, for the tests of the
later families: `dists(lib).Cauchy(...)` (the two relaxed base classes torch keeps
in their modules included)."""
from __future__ import annotations

from types import SimpleNamespace

import torch
import torch.distributions.relaxed_bernoulli
import torch.distributions.relaxed_categorical

import ember.distributions
from ember.distributions.relaxed_bernoulli import LogitRelaxedBernoulli
from ember.distributions.relaxed_categorical import ExpRelaxedCategorical

_TORCH = SimpleNamespace(
    **vars(torch.distributions),
    LogitRelaxedBernoulli=torch.distributions.relaxed_bernoulli.LogitRelaxedBernoulli,
    ExpRelaxedCategorical=torch.distributions.relaxed_categorical.ExpRelaxedCategorical)
_EMBER = SimpleNamespace(**vars(ember.distributions),
                         LogitRelaxedBernoulli=LogitRelaxedBernoulli,
                         ExpRelaxedCategorical=ExpRelaxedCategorical)


def dists(lib):
    """torch.distributions or ember.distributions, plus the two relaxed base classes."""
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
