"""nn.utils.weight_norm / remove_weight_norm (ember/nn/utils/weight_norm.py) against torch."""
import warnings

import numpy as np
import pytest
import torch

import ember
import ember.nn  # noqa: F401
from oracle import assert_same


def _pair(make, dim, name="weight"):
    """The same module in torch and ember (ember's weights copied from torch's), both
    weight-normalized over `dim`."""
    torch.manual_seed(0)
    t_mod, e_mod = make(torch), make(ember)
    e_mod.load_state_dict({k: ember.tensor(v.numpy()) for k, v in t_mod.state_dict().items()})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        torch.nn.utils.weight_norm(t_mod, name, dim)
        ember.nn.utils.weight_norm(e_mod, name, dim)
    return t_mod, e_mod


MODULES = [(lambda lib: lib.nn.Linear(5, 4), (3, 5)),
           (lambda lib: lib.nn.Conv2d(3, 4, 3), (2, 3, 6, 6))]


@pytest.mark.parametrize("make,x_shape", MODULES)
@pytest.mark.parametrize("dim", [0, 1, None, -1, -2])
def test_forward_and_gradients_match_torch(make, x_shape, dim):
    t_mod, e_mod = _pair(make, dim)
    assert list(e_mod.state_dict()) == list(t_mod.state_dict())
    assert_same(e_mod.weight_g.detach(), t_mod.weight_g.detach(), 1e-6, 1e-5, "weight_g")
    x = np.random.default_rng(1).standard_normal(x_shape).astype(np.float32)
    t_out, e_out = t_mod(torch.tensor(x)), e_mod(ember.tensor(x))
    assert_same(e_out, t_out, 1e-5, 1e-4)
    torch_node = type(t_mod.weight.grad_fn).__name__
    assert e_mod.weight.grad_fn.name() == torch_node
    (t_out ** 2).sum().backward()
    (e_out ** 2).sum().backward()
    for name in ("weight_g", "weight_v", "bias"):
        assert_same(getattr(e_mod, name).grad, getattr(t_mod, name).grad, 1e-5, 1e-4, name)


def test_the_weight_is_recomputed_before_every_forward():
    t_mod, e_mod = _pair(lambda lib: lib.nn.Linear(5, 4), 0)
    t_opt = torch.optim.SGD(t_mod.parameters(), lr=0.1)
    e_opt = ember.optim.SGD(e_mod.parameters(), lr=0.1)
    x = np.random.default_rng(2).standard_normal((3, 5)).astype(np.float32)
    for _ in range(3):
        for opt, mod, lib in ((t_opt, t_mod, torch), (e_opt, e_mod, ember)):
            opt.zero_grad()
            mod(lib.tensor(x)).pow(2).sum().backward()
            opt.step()
    assert_same(e_mod(ember.tensor(x)), t_mod(torch.tensor(x)), 1e-5, 1e-4)


def test_remove_weight_norm_keeps_the_current_weight():
    t_mod, e_mod = _pair(lambda lib: lib.nn.Conv2d(3, 4, 3), 0)
    torch.nn.utils.remove_weight_norm(t_mod)
    assert ember.nn.utils.remove_weight_norm(e_mod) is e_mod
    assert list(e_mod.state_dict()) == list(t_mod.state_dict()) == ["bias", "weight"]
    assert isinstance(e_mod.weight, ember.nn.Parameter)
    assert_same(e_mod.weight.detach(), t_mod.weight.detach(), 1e-6, 1e-5)
    assert not e_mod._forward_pre_hooks


def test_deprecation_warning_and_errors():
    for lib in (torch, ember):
        module = lib.nn.Linear(2, 2)
        with pytest.warns(FutureWarning, match=r"`torch.nn.utils.weight_norm` is deprecated "
                                               r"in favor of `torch.nn.utils.parametrizations"):
            lib.nn.utils.weight_norm(module)
        with pytest.raises(RuntimeError, match="^Cannot register two weight_norm hooks on "
                                               "the same parameter weight$"), \
                warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            lib.nn.utils.weight_norm(module)
        with pytest.raises(ValueError, match=r"^weight_norm of 'weight' not found in "
                                             r"Linear\(in_features=3"):
            lib.nn.utils.remove_weight_norm(lib.nn.Linear(3, 2))


def test_norm_except_dim():
    v = np.random.default_rng(3).standard_normal((4, 3, 2)).astype(np.float32)
    from ember.nn.utils.weight_norm import norm_except_dim
    for pow_, dim in [(2, 0), (2, 1), (2, -1), (3, 2), (2, -2)]:
        assert_same(norm_except_dim(ember.tensor(v), pow_, dim),
                    torch.norm_except_dim(torch.tensor(v), pow_, dim), 1e-6, 1e-5)
