"""nn.utils.skip_init, Module.to_empty, Module.compile, and the layout objects."""
import pytest
import torch

import ember


@pytest.mark.parametrize("args, kwargs", [((5, 1), {}), ((), {"in_features": 6,
                                                               "out_features": 2})])
def test_skip_init_builds_the_module_uninitialised(args, kwargs):
    got = ember.nn.utils.skip_init(ember.nn.Linear, *args, **kwargs)
    want = torch.nn.utils.skip_init(torch.nn.Linear, *args, **kwargs)
    assert repr(got) == repr(want)
    for (name, a), (_, b) in zip(got.named_parameters(), want.named_parameters()):
        assert type(a).__name__ == type(b).__name__ == "Parameter", name
        assert a.shape == b.shape and str(a.dtype) == str(b.dtype)
        assert a.requires_grad and b.requires_grad


@pytest.mark.parametrize("call", [
    lambda lib: lib.nn.utils.skip_init(lib.nn.ReLU),
    lambda lib: lib.nn.utils.skip_init(int),
])
def test_skip_init_errors(call):
    with pytest.raises(RuntimeError) as want:
        call(torch)
    with pytest.raises(RuntimeError) as got:
        call(ember)
    assert str(got.value).split(";")[0] == str(want.value).split(";")[0]


def test_to_empty_keeps_shapes_dtypes_and_parameters():
    for lib in (torch, ember):
        model = lib.nn.Sequential(lib.nn.Linear(3, 2), lib.nn.BatchNorm1d(2)).double()
        weight = model[0].weight
        assert model.to_empty(device="cpu") is model
        assert model[0].weight is weight                 # the same Parameter object
        state = model.state_dict()
        assert state["1.num_batches_tracked"].dtype == lib.int64
        assert state["0.weight"].dtype == lib.float64 and state["0.weight"].shape == (2, 3)
    with pytest.raises(AssertionError, match="Torch not compiled with CUDA enabled"):
        ember.nn.Linear(2, 2).to_empty(device="cuda")


def test_module_compile_in_place_keeps_state_dict_keys():
    for lib in (torch, ember):
        model = lib.nn.Linear(2, 3)
        assert model.compile() is None
        assert list(model.state_dict()) == ["weight", "bias"]
    x = ember.ones(1, 2)
    model = ember.nn.Linear(2, 3)
    before = model(x)
    model.compile(mode="max-autotune")
    assert ember.equal(model(x), before)
    with pytest.raises(RuntimeError, match="Unrecognized mode=fast"):
        model.compile(mode="fast")


def test_layouts():
    assert repr(ember.strided) == repr(torch.strided) == "torch.strided"
    assert ember.ones(2).layout is ember.strided
    assert ember.zeros(2, layout=ember.strided).shape == (2,)
    names = [n for n in dir(torch) if isinstance(getattr(torch, n), torch.layout)]
    assert sorted(n for n in names if isinstance(getattr(ember, n, None), ember.layout)) == \
        sorted(names)
    for make in (lambda: ember.zeros(2, layout=ember.sparse_coo),
                 lambda: ember.empty_like(ember.ones(2), layout=ember.sparse_csr),
                 lambda: ember.randn(2, layout=ember.sparse_coo)):
        with pytest.raises(NotImplementedError, match="layout=torch.sparse_c"):
            make()
