"""ember.compile (ember/_compile.py): torch's wrappers, run eagerly."""
import copy
import pickle

import numpy as np
import pytest
import torch

import ember
from oracle import assert_same, check_error


def _pair():
    torch.manual_seed(0)
    t_mod = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Linear(4, 2))
    e_mod = ember.nn.Sequential(ember.nn.Linear(3, 4), ember.nn.ReLU(), ember.nn.Linear(4, 2))
    e_mod.load_state_dict({k: ember.tensor(v.numpy()) for k, v in t_mod.state_dict().items()})
    return t_mod, e_mod


def test_compiled_module_wraps_like_torch():
    t_mod, e_mod = _pair()
    t_c, e_c = torch.compile(t_mod, backend="eager"), ember.compile(e_mod)
    assert type(e_c).__name__ == type(t_c).__name__ == "OptimizedModule"
    assert repr(e_c) == repr(t_c)
    assert list(e_c.state_dict()) == list(t_c.state_dict())
    assert [n for n, _ in e_c.named_parameters()] == [n for n, _ in t_c.named_parameters()]
    assert getattr(e_c, "0") is e_mod[0] and e_c._orig_mod is e_mod  # read through
    assert getattr(t_c, "0") is t_mod[0]
    x = np.random.default_rng(0).standard_normal((5, 3)).astype(np.float32)
    outs = [c(lib.tensor(x)) for lib, c in ((torch, t_c), (ember, e_c))]
    assert_same(outs[1], outs[0], 1e-6, 1e-5)
    e_c.eval()
    assert not e_mod.training and not e_mod[0].training


def test_orig_mod_checkpoint_pitfall():
    """A compiled model's state_dict does not load into the plain model (as in torch)."""
    for lib in (torch, ember):
        model = lib.nn.Linear(2, 2)
        compiled = lib.compile(model, backend="eager")
        with pytest.raises(RuntimeError, match="Missing key"):
            lib.nn.Linear(2, 2).load_state_dict(compiled.state_dict())
        compiled.load_state_dict(compiled.state_dict())
        assert model.load_state_dict({k.removeprefix("_orig_mod."): v for k, v in
                                      compiled.state_dict().items()}) is not None


def test_hooks_run_and_copies():
    model = ember.nn.Linear(2, 2)
    calls = []
    model.register_forward_hook(lambda mod, args, out: calls.append(mod))
    compiled = ember.compile(model)
    compiled(ember.ones(1, 2))
    assert calls == [model]
    for clone in (copy.deepcopy(compiled), pickle.loads(pickle.dumps(
            ember.compile(ember.nn.Linear(2, 2))))):
        assert type(clone).__name__ == "OptimizedModule"
        assert list(clone.state_dict()) == ["_orig_mod.weight", "_orig_mod.bias"]


def test_functions_decorator_and_disable():
    double = ember.compile(lambda x: x * 2)
    assert double(ember.tensor([1.0, 2.0])).tolist() == [2.0, 4.0]

    @ember.compile(fullgraph=True, mode="max-autotune")
    def add(a, b):
        return a + b
    assert add.__name__ == "add" and add(ember.ones(1), 1).tolist() == [2.0]
    model = ember.nn.Linear(1, 1)
    assert ember.compile(model, disable=True) is model


@pytest.mark.parametrize("fn, error, match", [
    (lambda L: L.compile(L.nn.Linear(1, 1), mode="fast"), RuntimeError,
     r"^Unrecognized mode=fast, should be one of: default, lite, reduce-overhead, "
     r"max-autotune-no-cudagraphs, max-autotune$"),
    (lambda L: L.compile(L.nn.Linear(1, 1), mode="default", options={}), RuntimeError,
     r"^Either mode or options can be specified, but both can't be specified at the same "
     r"time.$"),
    (lambda L: L.compile(L.nn.Linear(1, 1), backend="nope"), RuntimeError,
     r"^Invalid backend: 'nope', see `torch._dynamo.list_backends\(\)`"),
    (lambda L: L.compile(5), AssertionError,
     r"^A callable function is expected, but <class 'int'> is provided.$"),
])
def test_errors(fn, error, match):
    check_error(fn, error, match)


def test_backend_names_as_torch_lists_them():
    for exclude in [("debug", "experimental"), None]:
        ember_names = ember.compiler.list_backends(exclude_tags=exclude)
        torch_names = torch.compiler.list_backends(exclude_tags=exclude)
        assert set(ember_names) <= set(torch_names)
        assert ember_names == torch_names if exclude else "aot_eager" in ember_names
    error = check_error(lambda L: L.compile(L.nn.Linear(1, 1), backend="onnxrt"), RuntimeError,
                        "^Invalid backend: 'onnxrt'")
    assert type(error) is ember._dynamo.exc.InvalidBackend
