"""Shared fixtures of the vision tests."""
import pytest

import ember.nn.init


@pytest.fixture
def fast_init(monkeypatch):
    """Skip the random initialisation of parameters (the tensors keep their shapes), so
    full-size models build in a fraction of a second when only their structure is
    checked."""
    for name in ("normal_", "trunc_normal_", "uniform_", "xavier_uniform_", "kaiming_normal_",
                 "kaiming_uniform_"):
        monkeypatch.setattr(ember.nn.init, name, lambda tensor, *args, **kwargs: tensor)
