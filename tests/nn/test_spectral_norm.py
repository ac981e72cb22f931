"""nn.utils.spectral_norm / remove_spectral_norm (ember/nn/utils/spectral_norm.py) against
torch. The power iteration starts from random u, v: ember's are copied from torch's."""
from collections import OrderedDict

import numpy as np
import pytest
import torch

import ember
import ember.nn  # noqa: F401
from module_oracle import train_side_by_side
from oracle import assert_same


def _pair(make, **options):
    torch.manual_seed(0)
    t_mod, e_mod = make(torch), make(ember)
    torch.nn.utils.spectral_norm(t_mod, **options)
    ember.nn.utils.spectral_norm(e_mod, **options)
    e_mod.load_state_dict({k: ember.tensor(v.numpy()) for k, v in t_mod.state_dict().items()})
    return t_mod, e_mod


MODULES = [(lambda lib: lib.nn.Linear(5, 4), (3, 5), {}),
           (lambda lib: lib.nn.Conv2d(3, 4, 3), (2, 3, 6, 6), dict(n_power_iterations=3)),
           (lambda lib: lib.nn.ConvTranspose2d(3, 6, 3), (2, 3, 4, 4), {}),
           (lambda lib: lib.nn.Conv1d(2, 3, 2), (2, 2, 5), dict(dim=1, eps=1e-6))]


@pytest.mark.parametrize("make,x_shape,options", MODULES)
def test_training_steps_match_torch(make, x_shape, options):
    t_mod, e_mod = _pair(make, **options)
    assert list(e_mod.state_dict()) == list(t_mod.state_dict())
    x = np.random.default_rng(1).standard_normal(x_shape).astype(np.float32)
    for _ in range(3):
        train_side_by_side(t_mod, e_mod, x, steps=1)
        assert_same(e_mod.weight_orig.grad, t_mod.weight_orig.grad, 1e-5, 1e-4, "weight_orig")
        for name in ("weight_u", "weight_v"):
            assert_same(getattr(e_mod, name), getattr(t_mod, name), 1e-5, 1e-4, name)


def test_eval_mode_freezes_the_estimate():
    t_mod, e_mod = _pair(lambda lib: lib.nn.Linear(5, 4))
    t_mod.eval()
    e_mod.eval()
    x = np.ones((2, 5), np.float32)
    u_before = e_mod.weight_u.numpy().copy()
    assert_same(e_mod(ember.tensor(x)), t_mod(torch.tensor(x)), 1e-5, 1e-4)
    np.testing.assert_array_equal(e_mod.weight_u.numpy(), u_before)


def test_state_dict_metadata_and_removal():
    t_mod, e_mod = _pair(lambda lib: lib.nn.Linear(5, 4))
    assert e_mod.state_dict()._metadata[""]["spectral_norm"] == \
        t_mod.state_dict()._metadata[""]["spectral_norm"] == {"weight.version": 1}
    x = np.ones((2, 5), np.float32)
    t_mod(torch.tensor(x))
    e_mod(ember.tensor(x))
    torch.nn.utils.remove_spectral_norm(t_mod)
    assert ember.nn.utils.remove_spectral_norm(e_mod) is e_mod
    assert list(e_mod.state_dict()) == list(t_mod.state_dict()) == ["bias", "weight"]
    assert_same(e_mod.weight.detach(), t_mod.weight.detach(), 1e-5, 1e-4)
    assert not e_mod._forward_pre_hooks and not e_mod._state_dict_hooks
    assert not e_mod._load_state_dict_pre_hooks


def test_first_format_checkpoints_are_converted():
    """A checkpoint with weight, weight_orig and weight_u but no weight_v (torch's
    version 0) loads: v is solved from u so that sigma is kept (a tall weight, so that
    the solve is well posed)."""
    t_mod, e_mod = _pair(lambda lib: lib.nn.Linear(3, 6))
    old = OrderedDict((k, v) for k, v in t_mod.state_dict().items() if k != "weight_v")
    old["weight"] = t_mod.weight.detach() * 1.0
    old._metadata = OrderedDict({"": {"version": 1}})
    t_mod.load_state_dict(old)
    e_old = OrderedDict((k, ember.tensor(v.numpy())) for k, v in old.items())
    e_old._metadata = OrderedDict({"": {"version": 1}})
    e_mod.load_state_dict(e_old)
    assert_same(e_mod.weight_v, t_mod.weight_v, 1e-4, 1e-3)


def test_errors():
    for lib in (torch, ember):
        module = lib.nn.utils.spectral_norm(lib.nn.Linear(2, 2))
        with pytest.raises(RuntimeError, match="^Cannot register two spectral_norm hooks on "
                                               "the same parameter weight$"):
            lib.nn.utils.spectral_norm(module)
        with pytest.raises(ValueError, match=r"^spectral_norm of 'weight' not found in "
                                             r"Linear\(in_features=3"):
            lib.nn.utils.remove_spectral_norm(lib.nn.Linear(3, 2))
        with pytest.raises(ValueError, match="^Expected n_power_iterations to be positive, "
                                             "but got n_power_iterations=0$"):
            lib.nn.utils.spectral_norm(lib.nn.Linear(3, 2), n_power_iterations=0)
        with pytest.raises(ValueError, match="cannot be applied as parameter `bias` is None"):
            lib.nn.utils.spectral_norm(lib.nn.Linear(3, 2, bias=False), name="bias")
