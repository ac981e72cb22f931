"""Lazy modules (LazyLinear, LazyConv*, LazyBatchNorm*, LazyInstanceNorm*) and the
UninitializedParameter / UninitializedBuffer they hold, against torch: reprs and state_dicts
before and after the first call, the switch to the eager class, outputs and gradients after
copying torch's materialized weights, checkpoint loading, optimizers and errors."""
import copy
import math
import pickle

import numpy as np
import pytest
import torch

import ember
import ember.nn.modules.lazy
from module_oracle import check_module
from oracle import assert_same, check_error, rng

DTYPES = ["float32", "float64"]

# (make, shape of the first input that materializes the module, shape of later inputs)
LAZY_CASES = [
    (lambda lib: lib.nn.LazyLinear(4), (2, 3), (5, 3)),
    (lambda lib: lib.nn.LazyLinear(2, bias=False), (3,), (2, 6, 3)),
    (lambda lib: lib.nn.LazyConv1d(4, 3), (2, 3, 7), (1, 3, 9)),
    (lambda lib: lib.nn.LazyConv1d(4, 3, padding=1, bias=False), (3, 7), (3, 6)),
    (lambda lib: lib.nn.LazyConv2d(4, 3, stride=2, groups=2), (2, 4, 6, 6), (2, 4, 7, 5)),
    (lambda lib: lib.nn.LazyConv2d(3, 3, padding="same", padding_mode="reflect"),
     (1, 2, 5, 5), (2, 2, 6, 4)),
    (lambda lib: lib.nn.LazyConv3d(2, 2), (1, 3, 4, 4, 4), (2, 3, 3, 4, 5)),
    (lambda lib: lib.nn.LazyConvTranspose1d(4, 3, stride=2), (2, 3, 5), (1, 3, 4)),
    (lambda lib: lib.nn.LazyConvTranspose2d(4, 3, groups=2, output_padding=1, stride=2),
     (2, 4, 3, 3), (1, 4, 4, 2)),
    (lambda lib: lib.nn.LazyConvTranspose3d(2, 2, bias=False), (3, 2, 2, 2), (1, 3, 2, 3, 2)),
    (lambda lib: lib.nn.LazyBatchNorm1d(), (4, 3), (6, 3, 2)),
    (lambda lib: lib.nn.LazyBatchNorm1d(momentum=None, bias=False), (4, 3, 2), (5, 3, 2)),
    (lambda lib: lib.nn.LazyBatchNorm2d(affine=False), (2, 3, 4, 4), (3, 3, 2, 5)),
    (lambda lib: lib.nn.LazyBatchNorm3d(track_running_stats=False), (2, 2, 3, 3, 3),
     (2, 2, 2, 3, 4)),
    (lambda lib: lib.nn.LazyInstanceNorm1d(), (2, 3, 5), (3, 3, 6)),
    (lambda lib: lib.nn.LazyInstanceNorm2d(eps=1e-3, affine=False), (2, 3, 4, 4),
     (1, 3, 5, 3)),
    (lambda lib: lib.nn.LazyInstanceNorm3d(track_running_stats=False), (2, 2, 3, 3, 3),
     (1, 2, 3, 2, 4)),
]
IDS = [f"case{i}" for i in range(len(LAZY_CASES))]


def _input(lib, shape, seed=7, dtype="float32"):
    return lib.tensor(rng(seed).standard_normal(shape).astype(dtype))


def dry_run(make, shape):
    """make(lib), then one call on a fixed input to materialize its parameters."""
    def build(lib):
        module = make(lib)
        module(_input(lib, shape))
        return module
    return build


@pytest.mark.parametrize("make,first,later", LAZY_CASES, ids=IDS)
def test_uninitialized_state_matches_torch(make, first, later):
    tmod, emod = make(torch), make(ember)
    assert repr(emod) == repr(tmod)
    assert type(emod).__name__ == type(tmod).__name__
    assert emod.has_uninitialized_params() == tmod.has_uninitialized_params()
    tsd, esd = tmod.state_dict(), emod.state_dict()
    assert list(esd) == list(tsd)
    assert [repr(v) for v in esd.values()] == [repr(v) for v in tsd.values()]
    assert [n for n, _ in emod.named_parameters()] == [n for n, _ in tmod.named_parameters()]
    assert [n for n, _ in emod.named_buffers()] == [n for n, _ in tmod.named_buffers()]


@pytest.mark.parametrize("make,first,later", LAZY_CASES, ids=IDS)
def test_first_call_becomes_eager_class(make, first, later):
    tmod, emod = dry_run(make, first)(torch), dry_run(make, first)(ember)
    assert type(emod).__name__ == type(tmod).__name__
    assert type(emod) is getattr(ember.nn, type(tmod).__name__)
    assert repr(emod) == repr(tmod)
    assert not emod._forward_pre_hooks and not emod._load_state_dict_pre_hooks
    assert not hasattr(emod, "_initialize_hook")
    for (name, tp), (_, ep) in zip(tmod.state_dict().items(), emod.state_dict().items()):
        assert type(ep) is ember.Tensor and ep.shape == tp.shape and str(ep.dtype) == \
            str(tp.dtype), name
    assert all(type(p) is ember.nn.Parameter for p in emod.parameters())


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("make,first,later", LAZY_CASES, ids=IDS)
def test_materialized_module_matches_torch(make, first, later, dtype):
    # Same weights as torch's (copied across): outputs, gradients and buffers agree.
    check_module(dry_run(make, first), later, dtype=dtype, steps=2)


@pytest.mark.parametrize("make,first", [(c[0], c[1]) for c in LAZY_CASES[-7:]])
def test_norm_first_call_output_matches_torch(make, first):
    # Norm layers initialize deterministically (ones, zeros), so even the first call agrees.
    tmod, emod = make(torch), make(ember)
    assert_same(emod(_input(ember, first)), tmod(_input(torch, first)), 1e-5, 1e-5)
    for (name, tb), (_, eb) in zip(tmod.state_dict().items(), emod.state_dict().items()):
        assert_same(eb, tb, 1e-5, 1e-5, name)


@pytest.mark.parametrize("make,first", [(c[0], c[1]) for c in LAZY_CASES[:10]])
def test_linear_and_conv_use_default_init(make, first):
    # kaiming_uniform_(a=sqrt(5)) for the weight, U(-1/sqrt(fan_in), 1/sqrt(fan_in)) bias.
    ember.manual_seed(0)
    emod = dry_run(make, first)(ember)
    weight = emod.weight.detach().numpy()
    bound = 1 / math.sqrt(weight[0].size)   # fan_in: dim 1 times the kernel size
    assert np.abs(weight).max() <= bound and np.abs(weight).max() > bound / 4
    if emod.bias is not None:
        assert np.abs(emod.bias.detach().numpy()).max() <= bound


def test_seeded_init_matches_eager_class():
    # The lazy module draws the same numbers as the eager one built at the first call.
    ember.manual_seed(3)
    lazy = ember.nn.LazyConv2d(4, 3)
    lazy(ember.zeros(1, 2, 5, 5))
    ember.manual_seed(3)
    eager = ember.nn.Conv2d(2, 4, 3)
    assert np.array_equal(lazy.weight.detach().numpy(), eager.weight.detach().numpy())
    assert np.array_equal(lazy.bias.detach().numpy(), eager.bias.detach().numpy())


def test_non_contiguous_first_input():
    x = rng(1).standard_normal((3, 5)).astype("float32")
    tmod, emod = torch.nn.LazyLinear(2), ember.nn.LazyLinear(2)
    tmod(torch.tensor(x).t())
    emod(ember.tensor(x).t())
    assert repr(emod) == repr(tmod)


@pytest.mark.parametrize("dtype", DTYPES)
def test_factory_dtype_and_module_conversion_before_first_call(dtype):
    for lib in (torch, ember):
        wanted = getattr(lib, dtype)
        built = lib.nn.LazyBatchNorm2d(dtype=wanted)
        converted = lib.nn.LazyBatchNorm2d().to(wanted)
        for module in (built, converted):
            assert type(module.weight).__name__ == "UninitializedParameter"
            assert type(module.running_mean).__name__ == "UninitializedBuffer"
            assert module.weight.dtype == wanted and module.running_var.dtype == wanted
            module(lib.ones(2, 3, 2, 2, dtype=wanted))
            assert module.weight.dtype == wanted and module.running_mean.dtype == wanted
            assert module.num_batches_tracked.dtype == lib.int64


# ------------------------------------------------------------ the uninitialized tensors
def test_uninitialized_parameter_basics():
    for lib in (torch, ember):
        p = lib.nn.UninitializedParameter()
        assert repr(p) == str(p) == "<UninitializedParameter>"
        assert isinstance(p, lib.nn.Parameter) and isinstance(p, lib.Tensor)
        assert p.requires_grad and p.is_leaf and p.grad is None and p.grad_fn is None
        assert p.dtype == lib.float32 and p.is_floating_point() and not p.is_complex()
        assert p.size() == (0,) and p.ndim == 1
        assert p.cls_to_become is lib.nn.Parameter
        assert lib.nn.parameter.is_lazy(p) and not lib.nn.parameter.is_lazy(lib.ones(1))
        assert lib.nn.UninitializedParameter(False, dtype=lib.float64).dtype == lib.float64
        assert not lib.nn.UninitializedParameter(requires_grad=False).requires_grad
        assert p.float() is p and p.cpu() is p
        assert p.data.shape == (0,) and type(p.data) is lib.Tensor
        assert type(p.double()) is lib.Tensor and p.double().dtype == lib.float64


def test_uninitialized_buffer_basics():
    for lib in (torch, ember):
        b = lib.nn.UninitializedBuffer()
        assert repr(b) == "<UninitializedBuffer>"
        assert not b.requires_grad and b.persistent
        assert b.cls_to_become is lib.Tensor
        assert not isinstance(b, lib.nn.Parameter)
        converted = b.to(lib.float64)
        assert type(converted) is lib.nn.UninitializedBuffer and converted.dtype == lib.float64
        b.materialize(4)
        assert type(b) is lib.Tensor and b.shape == (4,) and b.dtype == lib.float32


def test_uninitialized_buffer_persistent_false_not_supported():
    with pytest.raises(NotImplementedError, match="persistent"):
        ember.nn.UninitializedBuffer(persistent=False)


@pytest.mark.parametrize("kwargs", [{}, {"dtype": "float16"}, {"device": "cpu"}])
def test_materialize(kwargs):
    results = []
    for lib in (torch, ember):
        args = {k: getattr(lib, v) if k == "dtype" else v for k, v in kwargs.items()}
        p = lib.nn.UninitializedParameter(dtype=lib.float64)
        p.materialize([2, 3], **args)
        assert type(p) is lib.nn.Parameter and p.requires_grad
        results.append((tuple(p.shape), str(p.dtype)))
        assert (p * 2).sum().grad_fn is not None  # usable like any parameter now
    assert results[0] == results[1]


USES = [
    lambda lib, p: p + 1,
    lambda lib, p: lib.add(p, 1),
    lambda lib, p: p.sum(),
    lambda lib, p: p.numel(),
    lambda lib, p: p.dim(),
    lambda lib, p: p.detach(),
    lambda lib, p: p.clone(),
    lambda lib, p: p.view(-1),
    lambda lib, p: p[0],
    lambda lib, p: len(p),
    lambda lib, p: p.tolist(),
    lambda lib, p: p.requires_grad_(False),
    lambda lib, p: lib.nn.functional.linear(lib.ones(2, 3), p),
]


@pytest.mark.parametrize("use", USES)
@pytest.mark.parametrize("kind", ["UninitializedParameter", "UninitializedBuffer"])
def test_using_uninitialized_tensor_raises(use, kind):
    check_error(lambda lib: use(lib, getattr(lib.nn, kind)()), ValueError,
                rf"^Attempted to use an uninitialized parameter in .*This error happens when "
                rf"you are using a `LazyModule` or explicitly manipulating "
                rf"`torch\.nn\.parameter\.{kind}` objects")


def test_shape_and_share_memory_raise():
    check_error(lambda lib: lib.nn.UninitializedParameter().shape, RuntimeError,
                r"^Can't access the shape of an uninitialized parameter or buffer\. This error "
                r"usually happens in `load_state_dict`")
    check_error(lambda lib: lib.nn.UninitializedBuffer().share_memory_(), RuntimeError,
                r"^Can't share memory on an uninitialized parameter or buffer\.")


@pytest.mark.parametrize("kind", ["UninitializedParameter", "UninitializedBuffer"])
def test_copy_and_pickle_stay_uninitialized(kind):
    p = getattr(ember.nn, kind)(dtype=ember.float64)
    for clone in (copy.deepcopy(p), pickle.loads(pickle.dumps(p))):
        assert type(clone) is type(p) and clone is not p
        assert clone.dtype == ember.float64 and clone.requires_grad == p.requires_grad


# ------------------------------------------------------------ lazy modules
def test_lazy_module_mixin_importable():
    assert ember.nn.modules.lazy.LazyModuleMixin.cls_to_become is None
    for name in ("LazyLinear", "LazyConv2d", "LazyConvTranspose3d", "LazyBatchNorm1d",
                 "LazyInstanceNorm2d"):
        ecls, tcls = getattr(ember.nn, name), getattr(torch.nn, name)
        assert issubclass(ecls, ember.nn.modules.lazy.LazyModuleMixin)
        assert ecls.cls_to_become.__name__ == tcls.cls_to_become.__name__
        # Same isinstance relations as torch (LazyConv2d is a Conv2d, LazyBatchNorm1d is not
        # a BatchNorm1d).
        assert issubclass(ecls, ecls.cls_to_become) == issubclass(tcls, tcls.cls_to_become)
    assert not hasattr(ember.nn, "LazyModuleMixin") and not hasattr(torch.nn, "LazyModuleMixin")


def test_state_dict_holds_the_uninitialized_objects():
    m = ember.nn.LazyLinear(3)
    sd = m.state_dict()
    assert sd["weight"] is m.weight and sd["bias"] is m.bias
    m(ember.ones(2, 4))
    assert m.state_dict()["weight"] is not m.weight  # detached as usual once initialized


@pytest.mark.filterwarnings("ignore:input's size at dim")
@pytest.mark.parametrize("make,first,later", LAZY_CASES, ids=IDS)
def test_load_state_dict_into_lazy_module(make, first, later):
    tsrc = dry_run(make, first)(torch)
    tmod, emod = make(torch), make(ember)
    sd = tsrc.state_dict()
    tkeys = tmod.load_state_dict(sd)
    ekeys = emod.load_state_dict({k: ember.tensor(v.numpy()) for k, v in sd.items()})
    assert repr(ekeys) == repr(tkeys) == "<All keys matched successfully>"
    assert type(emod).__name__ == type(tmod).__name__   # still lazy until the first call
    assert emod.has_uninitialized_params() == tmod.has_uninitialized_params()
    for (name, tv), (_, ev) in zip(tmod.state_dict().items(), emod.state_dict().items()):
        assert_same(ev, tv, 0, 0, name)
    tmod.train(False)
    emod.train(False)
    # torch keeps num_features=0 for a norm layer loaded before its first call (a torch
    # quirk: an affine lazy instance norm then refuses every input); ember follows.
    tout, eout = _outcome(tmod, _input(torch, later, 3)), _outcome(emod, _input(ember, later, 3))
    if isinstance(tout, Exception):
        assert type(eout) is type(tout) and str(eout) == str(tout)
    else:
        assert_same(eout, tout, 1e-5, 1e-5)
    assert repr(emod) == repr(tmod)
    assert type(emod).__name__ == type(tmod).__name__


def _outcome(module, x):
    """module(x), or the exception it raised."""
    try:
        return module(x)
    except ValueError as err:
        return err


def test_load_uninitialized_into_uninitialized_and_initialized():
    for lib in (torch, ember):
        m = lib.nn.LazyLinear(4)
        keys = m.load_state_dict(lib.nn.LazyLinear(4).state_dict())
        assert not keys.missing_keys and not keys.unexpected_keys
        assert type(m.weight) is lib.nn.UninitializedParameter
    check_error(lambda lib: lib.nn.Linear(3, 4).load_state_dict(lib.nn.LazyLinear(4).state_dict()),
                RuntimeError, r"^Can't access the shape of an uninitialized parameter")


def test_load_state_dict_errors_on_lazy_module():
    for lib in (torch, ember):
        # The checkpoint's shapes win over the constructor's, as in torch.
        m = lib.nn.LazyLinear(4)
        m.load_state_dict({"weight": lib.zeros(5, 3), "bias": lib.zeros(4)})
        assert m.weight.shape == (5, 3) and type(m.weight) is lib.nn.Parameter

    def missing_bias(lib):
        lib.nn.LazyLinear(4).load_state_dict({"weight": lib.zeros(4, 3)})
    check_error(missing_bias, RuntimeError, r'^Error\(s\) in loading state_dict for LazyLinear:'
                r'\n\tMissing key\(s\) in state_dict: "bias"\. $')

    def loaded_then_wrong_input(lib):
        m = lib.nn.LazyLinear(4)
        m.load_state_dict(lib.nn.Linear(3, 4).state_dict())
        m(lib.ones(2, 5))
    check_error(loaded_then_wrong_input, AssertionError,
                r"^The in_features inferred from input: 5 is not equal to in_features from "
                r"self.weight: 3$")


def test_loaded_lazy_linear_learns_in_features():
    for lib in (torch, ember):
        m = lib.nn.LazyLinear(4)
        m.load_state_dict(lib.nn.Linear(3, 4).state_dict())
        m(lib.ones(2, 3))
        assert repr(m) == "Linear(in_features=3, out_features=4, bias=True)"


@pytest.mark.parametrize("optimizer", ["SGD", "Adam"])
def test_optimizer_built_before_first_call(optimizer):
    # torch accepts uninitialized parameters; the same objects become real after the call.
    x = rng(0).standard_normal((4, 3)).astype("float32")
    mods, opts, outs = {}, {}, {}
    for lib in (torch, ember):
        mods[lib] = lib.nn.Sequential(lib.nn.LazyLinear(5), lib.nn.Tanh(), lib.nn.LazyLinear(1))
        opts[lib] = getattr(lib.optim, optimizer)(mods[lib].parameters(), lr=0.1)
        mods[lib](lib.ones(1, 3))
    mods[ember].load_state_dict({k: ember.tensor(v.numpy())
                                 for k, v in mods[torch].state_dict().items()})
    for _ in range(3):
        for lib in (torch, ember):
            opts[lib].zero_grad()
            outs[lib] = mods[lib](lib.tensor(x))
            (outs[lib] ** 2).sum().backward()
            opts[lib].step()
        assert_same(outs[ember], outs[torch], 1e-5, 1e-4)


def test_deepcopy_of_lazy_module_initializes_independently():
    for lib in (torch, ember):
        m = lib.nn.LazyLinear(3)
        clone = copy.deepcopy(m)
        clone(lib.ones(2, 5))
        assert repr(clone) == "Linear(in_features=5, out_features=3, bias=True)"
        assert repr(m) == "LazyLinear(in_features=0, out_features=3, bias=True)"
        m(lib.ones(2, 7))
        assert m.in_features == 7 and clone.weight.shape == (3, 5)


def test_module_requires_grad_before_first_call_raises():
    check_error(lambda lib: lib.nn.LazyLinear(3).requires_grad_(False), ValueError,
                r"^Attempted to use an uninitialized parameter in ")


def test_parameter_math_before_first_call_raises():
    check_error(lambda lib: sum(p.sum() for p in lib.nn.LazyConv2d(3, 2).parameters()),
                ValueError, r"^Attempted to use an uninitialized parameter in ")
    check_error(lambda lib: lib.nn.LazyBatchNorm1d().running_mean.shape, RuntimeError,
                r"^Can't access the shape of an uninitialized")


class _Scaled(ember.nn.modules.lazy.LazyModuleMixin, ember.nn.Module):
    """A user-written lazy module: one weight per input feature, scale given by keyword."""

    def __init__(self, forget: bool = False) -> None:
        super().__init__()
        self.forget = forget
        self.weight = ember.nn.UninitializedParameter()

    def initialize_parameters(self, input, scale=1.0) -> None:
        if not self.forget:
            self.weight.materialize(input.shape[-1:])
            with ember.no_grad():
                self.weight.fill_(scale)

    def forward(self, input, scale=1.0):
        return input * self.weight


def test_user_lazy_module_gets_forward_kwargs():
    m = _Scaled()
    out = m(ember.ones(2, 3), scale=2.0)
    assert type(m) is _Scaled and not m.has_uninitialized_params()
    assert out.tolist() == [[2.0] * 3] * 2
    out.sum().backward()
    assert m.weight.grad.tolist() == [2.0] * 3


def test_initialize_parameters_errors():
    with pytest.raises(RuntimeError, match=r"^module _Scaled has not been fully initialized$"):
        _Scaled(forget=True)(ember.ones(2, 3))

    class NoInit(ember.nn.modules.lazy.LazyModuleMixin, ember.nn.Module):
        pass
    with pytest.raises(NotImplementedError,
                       match=r"^initialize_parameters is not implemented for NoInit$"):
        NoInit()(ember.ones(1))


def test_conv_errors():
    check_error(lambda lib: lib.nn.LazyConv1d(4, 3)(lib.ones(5)), RuntimeError,
                r"^Expected 2D \(unbatched\) or 3D \(batched\) input to LazyConv1d, but got "
                r"input of size: torch.Size\(\[5\]\)$")
    check_error(lambda lib: lib.nn.LazyConvTranspose2d(4, 3, groups=2)(lib.ones(1, 3, 5, 5)),
                ValueError, r"^in_channels must be divisible by groups$")
    check_error(lambda lib: lib.nn.LazyConvTranspose1d(4, 3, padding_mode="reflect"),
                ValueError, r'^Only "zeros" padding mode is supported for LazyConvTranspose1d$')


def test_norm_wrong_input_materializes_then_raises():
    for lib in (torch, ember):
        m = lib.nn.LazyBatchNorm1d()
        with pytest.raises(ValueError, match=r"^expected 2D or 3D input \(got 4D input\)$"):
            m(lib.ones(4, 3, 2, 2))
        assert repr(m) == ("BatchNorm1d(3, eps=1e-05, momentum=0.1, affine=True, bias=True, "
                           "track_running_stats=True)")


def test_instance_norm_unbatched_first_input():
    # torch reads num_features from dim 1 even for an unbatched (C, L) input, so the first
    # unbatched call fails with affine=True; ember follows.
    check_error(lambda lib: lib.nn.LazyInstanceNorm1d()(lib.ones(3, 5)), ValueError,
                r"^expected input's size at dim=0 to match num_features \(5\), but got: 3\.$")
