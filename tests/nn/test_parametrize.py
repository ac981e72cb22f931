"""nn.utils.parametrize and parametrizations.weight_norm against torch."""
import copy
import pickle

import numpy as np
import pytest
import torch

import ember
import ember.nn  # noqa: F401
from module_oracle import train_side_by_side
from oracle import assert_same


def _copied(make):
    """The same module in torch and ember (ember's weights copied from torch's)."""
    torch.manual_seed(0)
    t_mod, e_mod = make(torch), make(ember)
    e_mod.load_state_dict({k: ember.tensor(v.numpy()) for k, v in t_mod.state_dict().items()})
    return t_mod, e_mod


def _symmetric(lib):
    class Symmetric(lib.nn.Module):
        def forward(self, x):
            return x.triu() + x.triu(1).transpose(0, 1)

        def right_inverse(self, a):
            return a.triu()
    return Symmetric()


def _scaled(lib):
    class Scaled(lib.nn.Module):
        def forward(self, x):
            return 2 * x
    return Scaled()


def test_register_access_train_and_remove():
    t_mod, e_mod = _copied(lambda lib: lib.nn.Linear(4, 4))
    for mod, lib in ((t_mod, torch), (e_mod, ember)):
        lib.nn.utils.parametrize.register_parametrization(mod, "weight", _symmetric(lib))
        lib.nn.utils.parametrize.register_parametrization(mod, "weight", _scaled(lib))
    assert repr(e_mod) == repr(t_mod)
    assert list(e_mod.state_dict()) == list(t_mod.state_dict())
    assert_same(e_mod.weight, t_mod.weight, 1e-6, 1e-5)
    x = np.random.default_rng(1).standard_normal((3, 4)).astype(np.float32)
    t_opt = torch.optim.SGD(t_mod.parameters(), lr=0.1)
    e_opt = ember.optim.SGD(e_mod.parameters(), lr=0.1)
    for opt, mod, lib in ((t_opt, t_mod, torch), (e_opt, e_mod, ember)):
        mod(lib.tensor(x)).pow(2).sum().backward()
        opt.step()
    assert_same(e_mod.parametrizations.weight.original, t_mod.parametrizations.weight.original,
                1e-5, 1e-4)
    assert_same(e_mod.weight, t_mod.weight, 1e-5, 1e-4)
    # assignment stores right_inverse of the value (through every parametrization's
    # right_inverse: Scaled has none, so torch refuses; ember too)
    with pytest.raises(RuntimeError, match="^parametrization Scaled does not implement "
                                           "right_inverse.$"):
        e_mod.weight = ember.zeros(4, 4)
    for mod, lib in ((t_mod, torch), (e_mod, ember)):
        original = mod.parametrizations.weight.original
        lib.nn.utils.parametrize.remove_parametrizations(mod, "weight")
        assert mod.weight is original and type(mod) is lib.nn.Linear
    assert_same(e_mod.weight.detach(), t_mod.weight.detach(), 1e-5, 1e-4)
    assert list(e_mod.state_dict()) == list(t_mod.state_dict())


def test_assignment_goes_through_right_inverse():
    module = ember.nn.Linear(3, 3)
    ember.nn.utils.parametrize.register_parametrization(module, "weight", _symmetric(ember))
    a = ember.tensor(np.arange(9, dtype=np.float32).reshape(3, 3))
    module.weight = a
    np.testing.assert_array_equal(module.parametrizations.weight.original.detach().numpy(),
                                  np.triu(a.numpy()))


def _flat_weight(lib):
    """A parametrization whose stored tensor has another shape than the parameter."""
    class FlatWeight(lib.nn.Module):
        def forward(self, x):
            return x.reshape(4, 3)

        def right_inverse(self, a):
            return a.t().flatten()
    return FlatWeight()


def test_original_keeps_its_object_and_takes_the_new_shape_and_storage():
    """register/assign/remove set the original in place (torch's set_): the same Parameter,
    reshaped, with its own storage, one version bump each."""
    seen = []
    for lib in (torch, ember):
        module = lib.nn.Linear(3, 4)
        weight, start = module.weight, module.weight._version
        lib.nn.utils.parametrize.register_parametrization(module, "weight", _flat_weight(lib),
                                                          unsafe=True)
        original = module.parametrizations.weight.original
        first = (original is weight, tuple(original.shape), original.stride(),
                 original._version - start, original.is_leaf, original.requires_grad)
        module.weight = lib.arange(12.0).reshape(4, 3)
        lib.nn.utils.parametrize.remove_parametrizations(module, "weight")
        seen.append((first, module.weight is weight, tuple(module.weight.shape),
                     module.weight._version - start, module.weight.untyped_storage().nbytes(),
                     module.weight.detach().numpy().tolist()))
    assert seen[1] == seen[0]


def test_cached_computes_once():
    calls = []

    class Counting(ember.nn.Module):
        def forward(self, x):
            calls.append(1)
            return x * 1
    module = ember.nn.Linear(2, 2)
    ember.nn.utils.parametrize.register_parametrization(module, "weight", Counting())
    calls.clear()
    with ember.nn.utils.parametrize.cached():
        first, second = module.weight, module.weight
    assert first is second and len(calls) == 1
    module.weight
    assert len(calls) == 2


def test_checks_and_errors():
    for lib in (torch, ember):
        P = lib.nn.utils.parametrize

        class Wide(lib.nn.Module):
            def forward(self, x):
                return lib.cat([x, x], 1)
        with pytest.raises(ValueError, match="^Registering a parametrization may not change "
                                             "the shape of the tensor, unless `unsafe` flag"):
            P.register_parametrization(lib.nn.Linear(2, 2), "weight", Wide())
        module = P.register_parametrization(lib.nn.Linear(2, 2), "weight", Wide(), unsafe=True)
        assert tuple(module.weight.shape) == (2, 4)
        with pytest.raises(ValueError, match=r"does not have a parameter, a buffer, or a "
                                             r"parametrized element with name 'nothing'"):
            P.register_parametrization(lib.nn.Linear(2, 2), "nothing", Wide())
        with pytest.raises(ValueError, match=r"does not have a parametrization on weight$"):
            P.remove_parametrizations(lib.nn.Linear(2, 2), "weight")
        assert not P.is_parametrized(lib.nn.Linear(2, 2))
        assert P.is_parametrized(module) and P.is_parametrized(module, "weight")
        assert not P.is_parametrized(module, "bias")
        with pytest.raises(RuntimeError, match="^Serialization of parametrized modules is "
                                               "only supported through state_dict()"):
            pickle.dumps(module)
        duplicate = copy.deepcopy(module)
        assert type(duplicate).__name__ == "ParametrizedLinear"
        assert duplicate.parametrizations.weight.original is not \
            module.parametrizations.weight.original


@pytest.mark.parametrize("make,x_shape", [(lambda lib: lib.nn.Linear(5, 4), (3, 5)),
                                          (lambda lib: lib.nn.Conv2d(3, 4, 3), (2, 3, 6, 6))])
@pytest.mark.parametrize("dim", [0, 1, None])
def test_weight_norm_matches_torch(make, x_shape, dim):
    t_mod, e_mod = _copied(make)
    torch.nn.utils.parametrizations.weight_norm(t_mod, dim=dim)
    ember.nn.utils.parametrizations.weight_norm(e_mod, dim=dim)
    assert repr(e_mod) == repr(t_mod)
    assert list(e_mod.state_dict()) == list(t_mod.state_dict())
    x = np.random.default_rng(1).standard_normal(x_shape).astype(np.float32)
    t_out, e_out = t_mod(torch.tensor(x)), e_mod(ember.tensor(x))
    assert_same(e_out, t_out, 1e-5, 1e-4)
    (t_out ** 2).sum().backward()
    (e_out ** 2).sum().backward()
    for i in (0, 1):
        name = f"original{i}"
        assert_same(getattr(e_mod.parametrizations.weight, name).grad,
                    getattr(t_mod.parametrizations.weight, name).grad, 1e-5, 1e-4, name)


def test_weight_norm_loads_checkpoints_of_the_hook_form():
    torch.manual_seed(0)
    old = torch.nn.Linear(3, 2)
    torch.nn.utils.weight_norm(old)
    state = {k: ember.tensor(v.detach().numpy()) for k, v in old.state_dict().items()}
    module = ember.nn.utils.parametrizations.weight_norm(ember.nn.Linear(3, 2))
    module.load_state_dict(state)
    assert_same(module.parametrizations.weight.original0.detach(), old.weight_g.detach(),
                1e-6, 1e-5)
    assert_same(module.weight, old.weight, 1e-6, 1e-5)


@pytest.mark.parametrize("make,x_shape,options", [
    (lambda lib: lib.nn.Linear(5, 4), (3, 5), {}),
    (lambda lib: lib.nn.Conv2d(3, 4, 3), (2, 3, 6, 6), dict(n_power_iterations=2)),
    (lambda lib: lib.nn.ConvTranspose2d(3, 6, 3), (2, 3, 4, 4), {})])
def test_spectral_norm_matches_torch(make, x_shape, options):
    """The power iteration starts from random vectors: ember's module takes torch's
    state (u, v after the 15 initial steps) before the steps are compared."""
    torch.manual_seed(0)
    t_mod, e_mod = make(torch), make(ember)
    torch.nn.utils.parametrizations.spectral_norm(t_mod, **options)
    ember.nn.utils.parametrizations.spectral_norm(e_mod, **options)
    assert repr(e_mod) == repr(t_mod)
    assert list(e_mod.state_dict()) == list(t_mod.state_dict())
    e_mod.load_state_dict({k: ember.tensor(v.numpy()) for k, v in t_mod.state_dict().items()})
    x = np.random.default_rng(1).standard_normal(x_shape).astype(np.float32)
    train_side_by_side(t_mod, e_mod, x)
    t_mod.eval()
    e_mod.eval()
    assert_same(e_mod(ember.tensor(x)), t_mod(torch.tensor(x)), 1e-5, 1e-4)


def test_spectral_norm_errors_and_vectors():
    for lib in (torch, ember):
        P = lib.nn.utils.parametrizations
        with pytest.raises(ValueError, match="has no parameter or buffer with name 'nothing'"):
            P.spectral_norm(lib.nn.Linear(2, 2), "nothing")
        with pytest.raises(IndexError, match=r"^Dimension out of range \(expected to be in "
                                             r"range of \[-2, 1\] but got 2\)"):
            P.spectral_norm(lib.nn.Linear(2, 2), dim=2)
        module = P.spectral_norm(lib.nn.Linear(3, 2), "bias")
        assert float(module.bias.norm()) == pytest.approx(1.0, rel=1e-6)
