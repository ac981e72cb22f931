"""torch.jit on ember: TorchScript-aware code runs eagerly with torch's results."""
import numpy as np
import pytest
import torch

import ember
import ember.jit  # noqa: F401
from oracle import assert_same, rng


def gelu_tanh(lib):
    def f(x):
        return 0.5 * x * (1 + lib.tanh(0.7978845608 * (x + 0.044715 * x * x * x)))
    return f


def build(lib):
    class Net(lib.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = lib.nn.Linear(4, 3)

        @lib.jit.export
        def scale(self) -> float:
            return 2.0

        @lib.jit.ignore
        def debug(self, x):
            return x

        @lib.jit.unused
        def unused_helper(self, x):
            return x

        def forward(self, x):
            if not lib.jit.is_scripting() and not lib.jit.is_tracing():
                x = self.debug(x)
            y = lib.jit.annotate(lib.Tensor, self.fc(x))
            return y * self.scale()
    torch.manual_seed(0)
    return Net()


def test_scripted_and_traced_code_gives_torchs_results():
    x = rng(0).standard_normal((5, 4)).astype(np.float32)
    tnet, enet = build(torch), build(ember)
    enet.load_state_dict({k: ember.tensor(v.numpy()) for k, v in tnet.state_dict().items()})
    with pytest.warns(UserWarning, match="^ember has no TorchScript: torch.jit.script returns"):
        escripted = ember.jit.script(enet)
    assert escripted is enet
    assert_same(escripted(ember.tensor(x)), torch.jit.script(tnet)(torch.tensor(x)), 1e-6, 1e-6)
    with pytest.warns(UserWarning, match="torch.jit.trace returns its argument unchanged"):
        etraced = ember.jit.trace(enet, ember.tensor(x))
    assert_same(etraced(ember.tensor(x)), torch.jit.trace(tnet, torch.tensor(x))(torch.tensor(x)),
                1e-6, 1e-6)
    with pytest.warns(UserWarning):
        efn = ember.jit.script(gelu_tanh(ember))
    assert_same(efn(ember.tensor(x)), torch.jit.script(gelu_tanh(torch))(torch.tensor(x)),
                1e-6, 1e-6)


def test_decorators_and_queries_are_eager_no_ops():
    for lib in (torch, ember):
        assert lib.jit.is_scripting() is False and lib.jit.is_tracing() is False
        assert lib.jit.annotate(int, 3) == 3

        @lib.jit.ignore(drop=True)
        def dropped(x):
            return x + 1

        assert dropped(1) == 2 and lib.jit.ignore(dropped) is dropped
        assert lib.jit.unused(dropped) is dropped and lib.jit.export(dropped) is dropped
        assert repr(lib.jit.Attribute(5, int)) == "Attribute(value=5, type=<class 'int'>)"
        assert lib.jit.Final is __import__("typing").Final


@pytest.mark.parametrize("name", ["save", "load", "freeze", "optimize_for_inference"])
def test_torchscript_programs_are_refused_with_the_alternative(name):
    with pytest.raises(NotImplementedError, match=f"^torch.jit.{name}: ember has no "
                                                  "TorchScript programs; "):
        getattr(ember.jit, name)(ember.nn.Linear(1, 1), "model.pt")


def test_annotations_module_gives_typing_names():
    # densenet-style code: `from torch.jit.annotations import List` at module level.
    import torch.jit.annotations
    import ember.jit.annotations
    for name in ("Any", "Dict", "List", "Optional", "Tuple", "Union"):
        assert getattr(ember.jit.annotations, name) is getattr(torch.jit.annotations, name)
    assert ember.jit.annotations.Future is ember.futures.Future
    for lib in (torch, ember):
        assert lib.jit.annotations.BroadcastingList2[int] is None
