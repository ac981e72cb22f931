"""nn.utils.prune (ember/nn/utils/prune.py) against torch.

Deterministic methods (l1, ln_structured, custom masks, global l1) run on the same
weights in both libraries and must give the same masks, values, state_dicts, hooks
and gradients. The random methods draw from different generators, so only what is
determined is compared: how many entries (or channels) are pruned, and their shape.
The weights are random normal draws, so there are no ties in |w| or in channel norms:
torch breaks ties by its topk kernel's order, which ember does not reproduce.
"""
import math

import numpy as np
import pytest
import torch
import torch.nn.utils.prune  # noqa: F401 (torch does not import it by itself)

import ember
import ember.nn.utils.prune  # noqa: F401
from oracle import assert_same, check_error

MODULES = {
    "linear": (lambda lib: lib.nn.Linear(6, 5), (3, 6)),
    "conv": (lambda lib: lib.nn.Conv2d(3, 4, 3), (2, 3, 5, 5)),
}


def _pair(kind="linear", dtype="float32"):
    """The same module in torch and ember, ember's weights copied from torch's."""
    make, x_shape = MODULES[kind]
    torch.manual_seed(0)
    t_mod = make(torch)
    e_mod = make(ember)
    if dtype == "float64":
        t_mod, e_mod = t_mod.double(), e_mod.double()
    e_mod.load_state_dict({k: ember.tensor(v.numpy()) for k, v in t_mod.state_dict().items()})
    return t_mod, e_mod, x_shape


def _prune(lib):
    return lib.nn.utils.prune


def _assert_modules_match(t_mod, e_mod, x_shape, name="weight"):
    """Same state_dict (keys, values), pruned attribute, hooks, outputs and gradients."""
    t_state, e_state = t_mod.state_dict(), e_mod.state_dict()
    assert list(e_state) == list(t_state)
    for key in t_state:
        assert_same(e_state[key], t_state[key], 0, 0, key)
    t_hooks = [type(h).__name__ for h in t_mod._forward_pre_hooks.values()]
    assert [type(h).__name__ for h in e_mod._forward_pre_hooks.values()] == t_hooks
    x = np.random.default_rng(1).standard_normal(x_shape).astype(np.float32)
    x = x.astype(str(t_mod.bias.dtype).replace("torch.", ""))
    t_out, e_out = t_mod(torch.tensor(x)), e_mod(ember.tensor(x))
    assert_same(e_out, t_out, 1e-5, 1e-4)
    assert_same(getattr(e_mod, name), getattr(t_mod, name), 0, 0, name)   # as the hook left it
    t_out.sum().backward()
    e_out.sum().backward()
    for (key, t_p), (e_key, e_p) in zip(t_mod.named_parameters(), e_mod.named_parameters()):
        assert e_key == key
        assert_same(e_p.grad, t_p.grad, 1e-5, 1e-4, f"{key}.grad")


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("amount", [0, 3, 0.3, 1.0, 30])
def test_l1_unstructured_matches_torch(dtype, amount):
    t_mod, e_mod, x_shape = _pair(dtype=dtype)
    for lib, mod in ((torch, t_mod), (ember, e_mod)):
        assert _prune(lib).l1_unstructured(mod, "weight", amount=amount) is mod
    assert isinstance(e_mod.weight_orig, ember.nn.Parameter)
    assert "weight" not in e_mod._parameters and "weight_mask" in e_mod._buffers
    assert e_mod.weight_mask.dtype is getattr(ember, dtype)
    assert not e_mod.weight_mask.requires_grad
    assert e_mod.weight.grad_fn.name() == t_mod.weight.grad_fn.name()
    _assert_modules_match(t_mod, e_mod, x_shape)
    # gradients reach weight_orig only where the mask keeps the entry
    pruned = e_mod.weight_mask.detach().numpy() == 0
    assert (e_mod.weight_orig.grad.numpy()[pruned] == 0).all()


@pytest.mark.parametrize("n", [1, 2, float("inf")])
@pytest.mark.parametrize("dim", [0, 1, -1])
@pytest.mark.parametrize("amount", [1, 0.5, 0])
def test_ln_structured_matches_torch(n, dim, amount):
    t_mod, e_mod, x_shape = _pair("conv")
    for lib, mod in ((torch, t_mod), (ember, e_mod)):
        _prune(lib).ln_structured(mod, "weight", amount=amount, n=n, dim=dim)
    _assert_modules_match(t_mod, e_mod, x_shape)


def test_importance_scores_decide_the_mask():
    t_mod, e_mod, x_shape = _pair("conv")
    scores = np.random.default_rng(7).standard_normal(t_mod.weight.shape).astype(np.float32)
    for lib, mod in ((torch, t_mod), (ember, e_mod)):
        _prune(lib).l1_unstructured(mod, "weight", 0.4, importance_scores=lib.tensor(scores))
    _assert_modules_match(t_mod, e_mod, x_shape)
    t_mod, e_mod, x_shape = _pair("conv")
    for lib, mod in ((torch, t_mod), (ember, e_mod)):
        _prune(lib).ln_structured(mod, "weight", 2, n=1, dim=0,
                                  importance_scores=lib.tensor(scores))
    _assert_modules_match(t_mod, e_mod, x_shape)


def test_custom_from_mask_and_identity():
    t_mod, e_mod, x_shape = _pair()
    mask = np.random.default_rng(3).random((5, 6)) > 0.5
    for lib, mod in ((torch, t_mod), (ember, e_mod)):
        _prune(lib).custom_from_mask(mod, "weight", mask=lib.tensor(mask))
        _prune(lib).identity(mod, "bias")
    assert e_mod.weight_mask.dtype is ember.float32
    _assert_modules_match(t_mod, e_mod, x_shape)
    _assert_modules_match(t_mod, e_mod, x_shape, name="bias")


@pytest.mark.parametrize("steps", [
    [("l1", 0.3), ("l1", 0.5)],
    [("l1", 4), ("ln", 1, 0), ("custom",)],
    [("ln", 2, 0), ("l1", 0.5), ("ln", 0.5, -1)],
    [("ln", 1, 1), ("ln", 1, 1), ("identity",)],
])
def test_iterative_pruning_combines_masks(steps):
    """A PruningContainer runs each new method on what is still unpruned: unstructured
    methods on the remaining entries, structured ones on the remaining channels."""
    t_mod, e_mod, x_shape = _pair()
    custom = np.random.default_rng(5).random((5, 6)) > 0.3
    for lib, mod in ((torch, t_mod), (ember, e_mod)):
        prune = _prune(lib)
        for step in steps:
            if step[0] == "l1":
                prune.l1_unstructured(mod, "weight", step[1])
            elif step[0] == "ln":
                prune.ln_structured(mod, "weight", step[1], n=2, dim=step[2])
            elif step[0] == "custom":
                prune.custom_from_mask(mod, "weight", lib.tensor(custom))
            else:
                prune.identity(mod, "weight")
    container = next(iter(e_mod._forward_pre_hooks.values()))
    assert isinstance(container, ember.nn.utils.prune.PruningContainer)
    assert len(container) == len(steps)
    assert [type(m).__name__ for m in container] == \
        [type(m).__name__ for m in next(iter(t_mod._forward_pre_hooks.values()))]
    _assert_modules_match(t_mod, e_mod, x_shape)


@pytest.mark.parametrize("amount", [0.3, 7, 0])
def test_global_unstructured_matches_torch(amount):
    t_a, e_a, _ = _pair()
    t_b, e_b, x_shape = _pair("conv")
    for lib, (a, b) in ((torch, (t_a, t_b)), (ember, (e_a, e_b))):
        prune = _prune(lib)
        prune.l1_unstructured(b, "weight", 0.2)       # an existing mask is respected
        prune.global_unstructured([(a, "weight"), (b, "weight"), (a, "bias")],
                                  pruning_method=prune.L1Unstructured, amount=amount)
    _assert_modules_match(t_a, e_a, (3, 6))
    _assert_modules_match(t_b, e_b, x_shape)


def test_global_unstructured_importance_scores():
    t_mod, e_mod, x_shape = _pair()
    scores = np.random.default_rng(9).standard_normal((5, 6)).astype(np.float32)
    for lib, mod in ((torch, t_mod), (ember, e_mod)):
        prune = _prune(lib)
        prune.global_unstructured([(mod, "weight"), (mod, "bias")],
                                  pruning_method=prune.L1Unstructured,
                                  importance_scores={(mod, "weight"): lib.tensor(scores)},
                                  amount=10)
    _assert_modules_match(t_mod, e_mod, x_shape)
    _assert_modules_match(t_mod, e_mod, x_shape, name="bias")


def test_remove_makes_pruning_permanent():
    t_mod, e_mod, x_shape = _pair()
    for lib, mod in ((torch, t_mod), (ember, e_mod)):
        prune = _prune(lib)
        prune.l1_unstructured(mod, "weight", 0.5)
        prune.l1_unstructured(mod, "weight", 3)
        assert prune.remove(mod, "weight") is mod
        assert not prune.is_pruned(mod)
    assert isinstance(e_mod.weight, ember.nn.Parameter) and e_mod.weight.requires_grad
    assert not hasattr(e_mod, "weight_orig") and not hasattr(e_mod, "weight_mask")
    assert len(e_mod._forward_pre_hooks) == 0
    assert (e_mod.weight.detach().numpy() == 0).sum() == math.ceil(0.5 * 30) + 3
    _assert_modules_match(t_mod, e_mod, x_shape)


def test_is_pruned_looks_into_submodules():
    for lib in (torch, ember):
        model = lib.nn.Sequential(lib.nn.Linear(2, 3), lib.nn.ReLU(), lib.nn.Linear(3, 1))
        assert not _prune(lib).is_pruned(model)
        _prune(lib).identity(model[2], "bias")
        assert _prune(lib).is_pruned(model)


def test_pruned_weight_is_recomputed_before_forward():
    """The hook refreshes `weight` from weight_orig, so training weight_orig is seen."""
    t_mod, e_mod, x_shape = _pair()
    for lib, mod in ((torch, t_mod), (ember, e_mod)):
        _prune(lib).l1_unstructured(mod, "weight", 0.5)
        with lib.no_grad():
            mod.weight_orig.add_(1.0)
    _assert_modules_match(t_mod, e_mod, x_shape)
    assert (e_mod.weight.detach().numpy() == 0).sum() == 15


def test_load_state_dict_of_pruned_module():
    t_mod, e_mod, x_shape = _pair()
    """Different random masks at first; loading torch's state_dict makes them equal."""
    _prune(torch).random_unstructured(t_mod, "weight", 0.4)
    _prune(ember).random_unstructured(e_mod, "weight", 0.4)
    e_mod.load_state_dict({k: ember.tensor(v.numpy()) for k, v in t_mod.state_dict().items()})
    _assert_modules_match(t_mod, e_mod, x_shape)


def test_prune_method_on_a_tensor():
    w = np.random.default_rng(2).standard_normal((4, 5)).astype(np.float32)
    outs = [lib.nn.utils.prune.L1Unstructured(amount=6).prune(lib.tensor(w))
            for lib in (torch, ember)]
    assert_same(outs[1], outs[0], 0, 0)
    outs = [lib.nn.utils.prune.LnStructured(amount=2, n=1, dim=1).prune(
        lib.tensor(w), default_mask=lib.ones(4, 5), importance_scores=lib.tensor(w[::-1].copy()))
        for lib in (torch, ember)]
    assert_same(outs[1], outs[0], 0, 0)


# ---------------------------------------------------------------- random methods

@pytest.mark.parametrize("amount,expected", [(0.5, 15), (7, 7), (0, 0), (1.0, 30)])
def test_random_unstructured_prunes_the_right_count(amount, expected):
    ember.manual_seed(0)
    _, e_mod, _ = _pair()
    ember.nn.utils.prune.random_unstructured(e_mod, "weight", amount)
    mask = e_mod.weight_mask.numpy()
    assert set(np.unique(mask)) <= {0.0, 1.0} and (mask == 0).sum() == expected
    assert ((e_mod.weight.detach().numpy() == 0) == (mask == 0)).all()
    ember.nn.utils.prune.random_unstructured(e_mod, "weight", 0.5)     # of the rest
    remaining = 30 - expected
    assert (e_mod.weight_mask.detach().numpy() == 0).sum() == expected + round(0.5 * remaining)


def test_random_unstructured_spreads_over_entries():
    """Over many draws every entry gets pruned about `amount` of the time."""
    ember.manual_seed(1)
    counts = np.zeros((5, 6))
    for _ in range(300):
        module = ember.nn.Linear(6, 5)
        ember.nn.utils.prune.random_unstructured(module, "weight", 0.5)
        counts += module.weight_mask.detach().numpy() == 0
    assert np.abs(counts / 300 - 0.5).max() < 0.15


@pytest.mark.parametrize("dim,amount,pruned_channels", [(0, 2, 2), (1, 0.5, 2), (-1, 1, 1)])
def test_random_structured_prunes_whole_channels(dim, amount, pruned_channels):
    ember.manual_seed(0)
    _, e_mod, _ = _pair("conv")
    ember.nn.utils.prune.random_structured(e_mod, "weight", amount, dim)
    mask = np.moveaxis(e_mod.weight_mask.numpy(), dim, 0).reshape(
        e_mod.weight.shape[dim], -1)
    channel_kept = mask.all(axis=1)
    assert (channel_kept | (mask == 0).all(axis=1)).all()     # each channel all 0 or all 1
    assert (~channel_kept).sum() == pruned_channels


def test_random_structured_on_top_of_unstructured():
    """A structured method in a container skips channels that are already all pruned."""
    ember.manual_seed(0)
    _, e_mod, _ = _pair()
    prune = ember.nn.utils.prune
    first_two_rows_pruned = np.repeat([[0.0], [1.0]], [2, 3], axis=0) * np.ones((5, 6))
    prune.custom_from_mask(e_mod, "weight", ember.tensor(first_two_rows_pruned))
    prune.random_structured(e_mod, "weight", 1, dim=0)
    assert (e_mod.weight_mask.numpy().sum(axis=1) == 0).sum() == 3    # 2 before + 1 of 3


# ---------------------------------------------------------------- errors

@pytest.mark.parametrize("amount,error,match", [
    (-1, ValueError, r"amount=-1 should either be a float in the range \[0, 1\] or a "
                     "non-negative integer"),
    (1.5, ValueError, r"amount=1.5 should either be a float in the range \[0, 1\]"),
    ("half", TypeError, "Invalid type for amount: half. Must be int or float."),
    (31, ValueError, "amount=31 should be smaller than the number of parameters to prune=30"),
])
def test_bad_amount(amount, error, match):
    check_error(lambda lib: lib.nn.utils.prune.l1_unstructured(lib.nn.Linear(6, 5), "weight",
                                                               amount), error, match)


def test_failed_pruning_leaves_the_module_unchanged():
    for lib in (torch, ember):
        module = lib.nn.Linear(6, 5)
        with pytest.raises(ValueError):
            lib.nn.utils.prune.random_unstructured(module, "weight", 31)
        assert isinstance(module.weight, lib.nn.Parameter)
        assert list(module.state_dict()) == ["bias", "weight"]
        assert not lib.nn.utils.prune.is_pruned(module)


def test_structured_errors():
    check_error(lambda lib: lib.nn.utils.prune.ln_structured(lib.nn.Linear(6, 5), "bias", 1,
                                                             n=2, dim=0),
                ValueError, r"Structured pruning can only be applied to multidimensional "
                            r"tensors. Found tensor of shape torch.Size\(\[5\]\) with 1 dims")
    check_error(lambda lib: lib.nn.utils.prune.random_structured(lib.nn.Linear(6, 5), "weight",
                                                                 1, dim=2),
                IndexError, r"Invalid index 2 for tensor of size torch.Size\(\[5, 6\]\)")
    check_error(lambda lib: lib.nn.utils.prune.ln_structured(lib.nn.Linear(6, 5), "weight", 7,
                                                             n=1, dim=0),
                ValueError, "amount=7 should be smaller than the number of parameters to "
                            "prune=5")


def test_remove_unpruned_is_an_error():
    check_error(lambda lib: lib.nn.utils.prune.remove(lib.nn.Linear(2, 3), "weight"),
                ValueError, r"Parameter 'weight' of module Linear\(in_features=2, "
                            r"out_features=3, bias=True\) has to be pruned before pruning can "
                            "be removed")


def test_global_unstructured_errors():
    def structured(lib):
        module = lib.nn.Linear(2, 3)
        lib.nn.utils.prune.global_unstructured([(module, "weight")],
                                               lib.nn.utils.prune.RandomStructured, amount=1)
    check_error(structured, TypeError, 'Only "unstructured" PRUNING_TYPE supported for the '
                                       "`pruning_method`. Found method .*RandomStructured'> "
                                       "of type structured")
    check_error(lambda lib: lib.nn.utils.prune.global_unstructured(
        3, lib.nn.utils.prune.L1Unstructured, amount=1),
        TypeError, "global_unstructured\\(\\): parameters is not an Iterable")
    check_error(lambda lib: lib.nn.utils.prune.global_unstructured(
        [], lib.nn.utils.prune.L1Unstructured, importance_scores=[1], amount=1),
        TypeError, "global_unstructured\\(\\): importance_scores must be of type dict")


def test_importance_scores_shape_error():
    check_error(lambda lib: lib.nn.utils.prune.l1_unstructured(
        lib.nn.Linear(2, 3), "weight", 1, importance_scores=lib.ones(2, 3)),
        AssertionError, r"importance_scores should have the same shape as parameter weight of "
                        r"Linear\(in_features=2, out_features=3, bias=True\), got "
                        r"torch.Size\(\[2, 3\]\) vs torch.Size\(\[3, 2\]\)")


def test_container_errors():
    def wrong_name(lib):
        prune = lib.nn.utils.prune
        module = lib.nn.Linear(2, 3)
        container = prune.identity(module, "weight")._forward_pre_hooks
        method = prune.Identity()
        method._tensor_name = "bias"
        prune.PruningContainer(next(iter(container.values()))).add_pruning_method(method)
    check_error(wrong_name, ValueError, "Can only add pruning methods acting on the parameter "
                                        "named 'weight' to PruningContainer .* Found 'bias'")
    check_error(lambda lib: lib.nn.utils.prune.PruningContainer().add_pruning_method(3),
                TypeError,
                "<class 'int'> is not a BasePruningMethod subclass")
    check_error(lambda lib: lib.nn.utils.prune.CustomFromMask(lib.ones(2)).compute_mask(
        lib.ones(3), lib.ones(3)), AssertionError,
        r"default_mask shape torch.Size\(\[3\]\) must match self.mask shape torch.Size\(\[2\]\)")
