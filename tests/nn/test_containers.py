"""Sequential, ModuleList, ModuleDict, ParameterList, ParameterDict against torch."""
from collections import OrderedDict

import numpy as np
import pytest
import torch

import ember
import ember.nn  # noqa: F401
from oracle import check_error


def lin(lib, i=2, o=2):
    return lib.nn.Linear(i, o)


def both(make):
    return make(torch), make(ember)


def same_repr(make):
    t, e = both(make)
    assert repr(e) == repr(t)
    return t, e


def test_sequential_repr_keys_and_forward():
    make = lambda lib: lib.nn.Sequential(lin(lib, 4, 3), lib.nn.ReLU(), lin(lib, 3, 2))  # noqa
    t, e = same_repr(make)
    assert list(e.state_dict()) == list(t.state_dict())
    e.load_state_dict({k: ember.tensor(v.numpy()) for k, v in t.state_dict().items()})
    x = np.ones((2, 4), dtype=np.float32)
    np.testing.assert_allclose(e(ember.tensor(x)).detach().numpy(),
                               t(torch.tensor(x)).detach().numpy(), rtol=1e-6)
    same_repr(lambda lib: lib.nn.Sequential(OrderedDict(conv=lin(lib), act=lib.nn.ReLU())))
    same_repr(lambda lib: lib.nn.Sequential())
    same_repr(lambda lib: lib.nn.Sequential(lib.nn.Sequential(lin(lib)), lib.nn.ReLU()))


@pytest.mark.parametrize("op", [
    lambda s: s[-1], lambda s: s[1:], lambda s: s[::2], lambda s: len(s),
    lambda s: s.append(s[0]), lambda s: s.insert(1, s[0]), lambda s: s.insert(-1, s[2]),
    lambda s: s.extend(s[:2]), lambda s: s.pop(1), lambda s: s + s, lambda s: s * 2,
    lambda s: s.__delitem__(0), lambda s: s.__delitem__(slice(0, 2)),
    lambda s: s.__setitem__(-1, s[0]), lambda s: list(s), lambda s: s.__iadd__(s[:1]),
])
def test_sequential_list_api(op):
    def run(lib):
        s = lib.nn.Sequential(lin(lib), lib.nn.ReLU(), lib.nn.Tanh())
        out = op(s)
        return repr(out) + "|" + repr(s)
    assert run(ember) == run(torch)


def test_sequential_errors():
    check_error(lambda lib: lib.nn.Sequential(lin(lib))[3], IndexError, "^index 3 is out of range")
    check_error(lambda lib: lib.nn.Sequential(lin(lib)) + lib.nn.ModuleList(), ValueError,
                "^add operator supports only objects of Sequential class")
    check_error(lambda lib: lib.nn.Sequential(lin(lib)).insert(5, lin(lib)), IndexError,
                "^Index out of range: 5")
    check_error(lambda lib: lib.nn.Sequential(lin(lib)) * 0, ValueError,
                "^Non-positive multiplication factor 0")


def test_sequential_slice_shares_modules():
    s = ember.nn.Sequential(lin(ember), ember.nn.ReLU())
    assert s[0:1][0] is s[0] and isinstance(s[0:1], ember.nn.Sequential)


def test_modulelist():
    make = lambda lib: lib.nn.ModuleList([lin(lib) for _ in range(3)] + [lib.nn.ReLU(), lin(lib, 2, 3)])  # noqa
    t, e = same_repr(make)
    assert list(e.state_dict()) == list(t.state_dict())
    same_repr(lambda lib: lib.nn.ModuleList())
    same_repr(lambda lib: lib.nn.Sequential(lib.nn.ModuleList([lin(lib), lin(lib)])))

    def ops(lib):
        m = lib.nn.ModuleList([lin(lib), lib.nn.ReLU()])
        m.append(lib.nn.Tanh())
        m.insert(0, lib.nn.Sigmoid())
        m.extend([lib.nn.ReLU()])
        m += [lib.nn.Identity()]
        popped = m.pop(-2)
        del m[1]
        m[0] = lib.nn.GELU()
        return repr(m) + repr(popped) + repr(m[1:3]) + repr(m + m) + str(len(m))
    assert ops(ember) == ops(torch)
    check_error(lambda lib: lib.nn.ModuleList()[0], IndexError, "^index 0 is out of range")
    check_error(lambda lib: lib.nn.ModuleList().extend(3), TypeError,
                "^ModuleList.extend should be called with an iterable, but got int")


def test_moduledict():
    make = lambda lib: lib.nn.ModuleDict({"b": lin(lib), "a": lib.nn.ReLU()})  # noqa
    t, e = same_repr(make)
    assert list(e.state_dict()) == list(t.state_dict())

    def ops(lib):
        d = lib.nn.ModuleDict([("x", lib.nn.ReLU())])
        d["y"] = lib.nn.Tanh()
        d.update({"z": lib.nn.Sigmoid()})
        popped = d.pop("x")
        return repr(d) + repr(popped) + str(list(d.keys())) + str("y" in d) + str(len(d))
    assert ops(ember) == ops(torch)
    check_error(lambda lib: lib.nn.ModuleDict([("x",)]), ValueError,
                "^ModuleDict update sequence element #0 has length 1; 2 is required")


def test_parameterlist_and_dict():
    def plist(lib):
        p = lib.nn.ParameterList([lib.nn.Parameter(lib.zeros(2, 3)), lib.zeros(2, dtype=lib.float64)])
        p.append(lib.ones(1))
        return p
    t, e = same_repr(plist)
    assert list(e.state_dict()) == list(t.state_dict()) == ["0", "1", "2"]
    assert all(isinstance(p, ember.nn.Parameter) for p in e) and len(e) == 3
    assert repr(e[1:]) == repr(t[1:])

    def pdict(lib):
        d = lib.nn.ParameterDict({"a": lib.nn.Parameter(lib.zeros(2, 3)), "b": lib.zeros(3)})
        d["c"] = lib.ones(1, dtype=lib.float64)
        return d
    t, e = same_repr(pdict)
    assert list(e.state_dict()) == list(t.state_dict())
    assert list(e.keys()) == ["a", "b", "c"] and isinstance(e["b"], ember.nn.Parameter)
    assert e.pop("a").shape == (2, 3) and "a" not in e and len(e) == 2
    assert e.get("zz", 5) == 5
    check_error(lambda lib: lib.nn.ParameterList()(1), RuntimeError,
                "^ParameterList should not be called.")
    check_error(lambda lib: lib.nn.ParameterDict()[1], TypeError,
                "^Index given to ParameterDict cannot be used as a key")


def test_containers_in_model_state_dict():
    def make(lib):
        class Net(lib.nn.Module):
            def __init__(self):
                super().__init__()
                self.blocks = lib.nn.ModuleList([lib.nn.Sequential(lin(lib), lib.nn.ReLU())
                                                 for _ in range(2)])
                self.heads = lib.nn.ModuleDict({"cls": lin(lib, 2, 5)})
                self.scales = lib.nn.ParameterList([lib.ones(2)])
                self.table = lib.nn.ParameterDict({"w": lib.ones(1)})
        return Net()
    t, e = same_repr(make)
    assert list(e.state_dict()) == list(t.state_dict())
    assert [n for n, _ in e.named_parameters()] == [n for n, _ in t.named_parameters()]
