"""torch.func.functional_call / stack_module_state and nn.utils.stateless, against torch."""
import warnings

import numpy as np
import pytest
import torch

import ember
from oracle import assert_same, check_error, rng


class Tied:
    """A module whose `decoder.weight` is `encoder.weight` (tied weights)."""

    @staticmethod
    def build(lib):
        torch.manual_seed(0)
        model = lib.nn.Sequential(lib.nn.Linear(3, 3, bias=False), lib.nn.Linear(3, 3, bias=False))
        model[1].weight = model[0].weight
        return model


def pair(make):
    torch.manual_seed(0)
    tmod, emod = make(torch), make(ember)
    emod.load_state_dict({k: ember.tensor(v.detach().numpy())
                          for k, v in tmod.state_dict().items()})
    return tmod, emod


def values(lib, arrays, requires_grad=True):
    return {k: lib.tensor(a, requires_grad=requires_grad) for k, a in arrays.items()}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_functional_call_values_gradients_and_restore(dtype):
    make = (lambda lib: lib.nn.Sequential(lib.nn.Linear(4, 3), lib.nn.Tanh(),
                                          lib.nn.Linear(3, 2)).to(getattr(lib, dtype)))
    tmod, emod = pair(make)
    r = rng(0)
    arrays = {"0.weight": r.standard_normal((3, 4)).astype(dtype),
              "2.bias": r.standard_normal(2).astype(dtype)}
    x = r.standard_normal((5, 4)).astype(dtype)
    before = dict(emod.named_parameters())
    outs = {}
    for lib, mod in ((torch, tmod), (ember, emod)):
        given = values(lib, arrays)
        out = lib.func.functional_call(mod, given, lib.tensor(x))
        out.pow(2).sum().backward()
        outs[lib] = out, given
    assert_same(outs[ember][0], outs[torch][0], 1e-6, 1e-5)
    for k in arrays:
        assert_same(outs[ember][1][k].grad, outs[torch][1][k].grad, 1e-5, 1e-5)
    # the module's own tensors are back, and those replaced got no gradient
    assert dict(emod.named_parameters()) == before
    assert emod[0].weight.grad is None and emod[2].bias.grad is None
    assert_same(emod[0].bias.grad, tmod[0].bias.grad, 1e-5, 1e-5)


def test_args_kwargs_and_tuple_of_dicts():
    class Affine:
        @staticmethod
        def build(lib):
            class M(lib.nn.Module):
                def __init__(self):
                    super().__init__()
                    self.scale = lib.nn.Parameter(lib.ones(2))
                    self.register_buffer("shift", lib.zeros(2))

                def forward(self, x, *, power=1):
                    return (x * self.scale + self.shift) ** power
            return M()

    for lib in (torch, ember):
        mod = Affine.build(lib)
        x = lib.tensor([1.0, 2.0])
        parts = ({"scale": lib.tensor([2.0, 3.0])}, {"shift": lib.tensor([1.0, 1.0])})
        out = lib.func.functional_call(mod, parts, (x,), {"power": 2})
        assert out.tolist() == [9.0, 49.0]
        assert lib.func.functional_call(mod, parts[0], x).tolist() == [2.0, 6.0]   # not a tuple
        assert mod.scale.tolist() == [1.0, 1.0] and isinstance(mod.scale, lib.nn.Parameter)
    check_error(lambda lib: lib.func.functional_call(
        lib.nn.Linear(1, 1), ({"weight": lib.ones(1, 1)}, {"weight": lib.ones(1, 1)}),
        lib.ones(1)), ValueError,
        r"^\['weight'\] appeared in multiple dictionaries; behavior of functional call is "
        "ambiguous$")
    check_error(lambda lib: lib.func.functional_call(lib.nn.Linear(1, 1), 3, lib.ones(1)),
                ValueError, "^Expected parameter_and_buffer_dicts to be a dict, or a list/tuple "
                "of dicts, but got <class 'int'>$")
    check_error(lambda lib: lib.func.functional_call(lib.nn.Linear(1, 1), [{}, 3], lib.ones(1)),
                ValueError, "^Expected all elements of parameter_and_buffer_dicts to be "
                "dictionaries$")


def test_buffers_updated_in_place_go_to_the_given_tensors():
    """A train-mode BatchNorm updates the running statistics it is given, not its own."""
    tmod, emod = pair(lambda lib: lib.nn.BatchNorm1d(3))
    x = rng(1).standard_normal((6, 3)).astype(np.float32)
    results = {}
    for lib, mod in ((torch, tmod), (ember, emod)):
        given = {"running_mean": lib.zeros(3), "running_var": lib.ones(3),
                 "num_batches_tracked": lib.tensor(0)}
        lib.func.functional_call(mod, given, lib.tensor(x))
        results[lib] = given
        assert mod.running_mean.tolist() == [0.0] * 3 and mod.num_batches_tracked.item() == 0
    for k in results[torch]:
        assert_same(results[ember][k], results[torch][k], 1e-6, 1e-6)


def test_tied_weights():
    tmod, emod = pair(Tied.build)
    w = rng(2).standard_normal((3, 3)).astype(np.float32)
    x = rng(3).standard_normal((2, 3)).astype(np.float32)
    for tie in (True, False):
        out_t = torch.func.functional_call(tmod, {"0.weight": torch.tensor(w)}, torch.tensor(x),
                                           tie_weights=tie)
        out_e = ember.func.functional_call(emod, {"0.weight": ember.tensor(w)}, ember.tensor(x),
                                           tie_weights=tie)
        assert_same(out_e, out_t, 1e-6, 1e-6)
    assert emod[1].weight is emod[0].weight
    check_error(lambda lib: lib.func.functional_call(
        Tied.build(lib), {"0.weight": lib.zeros(3, 3), "1.weight": lib.ones(3, 3)},
        lib.ones(1, 3)), ValueError,
        r"^functional_call got multiple values for keys \['0.weight', '1.weight'\], which are "
        "tied. Consider using tie_weights=False$")


def test_strict_and_bad_values_leave_the_module_untouched():
    check_error(lambda lib: lib.func.functional_call(
        lib.nn.Linear(2, 2), {"weight": lib.ones(2, 2), "extra": lib.ones(1)}, lib.ones(2),
        strict=True), RuntimeError,
        r"^Error\(s\) in reparametrizing for Linear:\n\tUnexpected key\(s\): 'extra'.\n\t"
        r"Missing key\(s\): 'bias'.$")
    for lib in (torch, ember):
        mod = lib.nn.Linear(2, 2)
        weight, bias = mod.weight, mod.bias
        with pytest.raises(TypeError, match="is not an instance of torch.Tensor"):
            lib.func.functional_call(mod, {"weight": lib.ones(2, 2), "bias": [1.0, 2.0]},
                                     lib.ones(2))
        assert mod.weight is weight and mod.bias is bias
        with pytest.raises(RuntimeError):     # the forward fails: still restored
            lib.func.functional_call(mod, {"weight": lib.ones(3, 3)}, lib.ones(2))
        assert mod.weight is weight
        # a name the module lacks is set for the call and removed afterwards
        lib.func.functional_call(mod, {"extra": lib.ones(1)}, lib.ones(2))
        assert not hasattr(mod, "extra")
    check_error(lambda lib: lib.func.functional_call(lib.nn.Sequential(lib.nn.Linear(1, 1)),
                                                     {"5.weight": lib.ones(1, 1)}, lib.ones(1)),
                AttributeError, "^Sequential has no attribute `5`$")
    check_error(lambda lib: lib.func.functional_call(lib.nn.DataParallel(lib.nn.Linear(1, 1)),
                                                     {}, lib.ones(1)),
                RuntimeError, "^The stateless API can't be used with nn.DataParallel module$")


def test_stateless_functional_call_is_deprecated():
    for lib in (torch, ember):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out = lib.nn.utils.stateless.functional_call(
                lib.nn.Linear(1, 1), {"weight": lib.ones(1, 1), "bias": lib.zeros(1)},
                lib.full((1,), 3.0))
        assert out.item() == 3.0
        assert [w.category for w in caught] == [FutureWarning]
        assert str(caught[0].message).startswith("`torch.nn.utils.stateless.functional_call` "
                                                 "is deprecated as of PyTorch 2.0")


def test_stack_module_state():
    shapes = {}
    for lib in (torch, ember):
        models = [lib.nn.BatchNorm1d(3) for _ in range(4)]
        params, buffers = lib.func.stack_module_state(models)
        shapes[lib] = ({k: (tuple(v.shape), v.requires_grad, v.is_leaf)
                        for k, v in params.items()},
                       {k: (tuple(v.shape), v.requires_grad) for k, v in buffers.items()})
        assert params["weight"].tolist() == [[1.0] * 3] * 4
        assert buffers["num_batches_tracked"].dtype == lib.int64
    assert shapes[ember] == shapes[torch]
    check_error(lambda lib: lib.func.stack_module_state([]), RuntimeError,
                "^stack_module_state: Expected at least one model, got 0.$")
    check_error(lambda lib: lib.func.stack_module_state([lib.nn.Linear(1, 1),
                                                        lib.nn.Linear(1, 1).eval()]),
                RuntimeError, "^stack_module_state: Expected all models to have the same "
                "training/eval mode.$")
    check_error(lambda lib: lib.func.stack_module_state([lib.nn.Linear(1, 1), lib.nn.Tanh()]),
                RuntimeError, "^stack_module_state: Expected all models to be of the same class.$")
    check_error(lambda lib: lib.func.stack_module_state(
        [lib.nn.Linear(1, 1), lib.nn.Linear(1, 1).requires_grad_(False)]),
        RuntimeError, "^Expected weight from each model to have the same .requires_grad$")


def test_a_forward_that_reassigns_a_buffer_updates_the_callers_dict():
    for lib in (torch, ember):
        class Counter(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.register_buffer("count", lib.zeros(()))

            def forward(self, x):
                self.count = self.count + 1
                return x

        mod = Counter()
        given = {"count": lib.tensor(5.0)}
        lib.func.functional_call(mod, given, lib.ones(1))
        assert given["count"].item() == 6.0 and mod.count.item() == 0.0


def test_functorch_make_functional_and_ensembles():
    # the forward AD tutorial imports functorch, whose names come from torch._functorch
    import torch._functorch.deprecated as torch_ft

    import ember._functorch.deprecated as ember_ft
    tmod, emod = pair(lambda lib: lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.BatchNorm1d(4)))
    x = rng().standard_normal((5, 3)).astype(np.float32)
    results = {}
    for lib, ft, mod in ((torch, torch_ft, tmod), (ember, ember_ft, emod)):
        with pytest.warns(FutureWarning, match="`functorch.make_functional_with_buffers` is "
                          "deprecated as of PyTorch 2.0"):
            func, params, buffers = ft.make_functional_with_buffers(mod)
        out = func(params, buffers, lib.tensor(x))
        grads = lib.autograd.grad(out.sum(), params)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            linear, (w, b) = ft.make_functional(mod[0], disable_autograd_tracking=True)
            jvp_out = ft.jvp(lambda p: linear(p, lib.tensor(x)), ((w, b),),
                             ((lib.ones_like(w), lib.ones_like(b)),))
            ens, ens_params, ens_buffers = ft.combine_state_for_ensemble([mod[0], mod[0]])
            ens_out = ft.vmap(ens, (0, 0, None))(ens_params, ens_buffers, lib.tensor(x))
        results[lib] = (out, grads, jvp_out, ens_out,
                        [(tuple(p.shape), p.requires_grad) for p in params + (w, b)],
                        [tuple(p.shape) for p in ens_params], mod[0].weight.grad)
    assert results[ember][4:6] == results[torch][4:6]
    assert_same(results[ember][:4], results[torch][:4], 1e-5, 1e-5)
    assert results[ember][6] is None and results[torch][6] is None  # the model is untouched
    check_error(lambda lib: (torch_ft if lib is torch else ember_ft).make_functional(
        lib.nn.BatchNorm1d(2)), RuntimeError, "^make_functional\\(model\\): `model` has "
        "buffers. Please use make_functional_with_buffers\\(model\\) instead.$")
