"""Names older PyTorch code still uses, against torch: deprecated spellings that work and
warn, and removed functions that fail with torch's words."""
import warnings

import numpy as np
import pytest
import torch

import ember
from oracle import check_error


def _run_recording(fn, lib):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = fn(lib)
    return result, [(w.category, str(w.message).split(" (Triggered internally")[0])
                    for w in caught]


def same_with_warnings(fn):
    """fn(lib) gives equal values and the same warnings (category and message) on both."""
    expected, torch_warnings = _run_recording(fn, torch)
    got, ember_warnings = _run_recording(fn, ember)
    assert ember_warnings == torch_warnings
    assert repr(got).replace("ember", "torch") == repr(expected)
    return got


@pytest.fixture
def default_dtype_restored():
    yield
    torch.set_default_dtype(torch.float32)
    ember.set_default_dtype(ember.float32)


@pytest.mark.parametrize("kind", ["DoubleTensor", "torch.DoubleTensor", "torch.HalfTensor",
                                  "FloatTensor"])
def test_set_default_tensor_type(kind, default_dtype_restored):
    """Both warn the first time only, in a process."""
    def make(lib):
        lib.set_default_tensor_type(kind if "." in kind else getattr(lib, kind))
        return lib.tensor([1.5]).dtype, lib.get_default_dtype()
    same_with_warnings(make)


@pytest.mark.parametrize("kind,error,match", [
    ("torch.cuda.FloatTensor", TypeError, "^type torch.cuda.FloatTensor not available"),
    ("torch.LongTensor", TypeError, "^only floating-point types are supported as the default"),
    ("IntTensor", TypeError, "^only floating-point types are supported as the default"),
    ("float64", TypeError, "^invalid type object: only floating-point types are supported"),
])
def test_set_default_tensor_type_errors(kind, error, match, default_dtype_restored):
    def call(lib):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            lib.set_default_tensor_type(kind if "." in kind else getattr(lib, kind))
    check_error(call, error, match)


@pytest.mark.parametrize("call", [
    lambda lib: lib.solve(lib.eye(2), lib.eye(2)),
    lambda lib: lib.symeig(lib.eye(2)),
    lambda lib: lib.eig(lib.eye(2)),
    lambda lib: lib.lstsq(lib.eye(2), lib.eye(2)),
    lambda lib: lib.matrix_rank(lib.eye(2)),
    lambda lib: lib.eye(2).solve(lib.eye(2)),
    lambda lib: lib.eye(2).symeig(eigenvectors=True),
    lambda lib: lib.eye(2).eig(),
    lambda lib: lib.eye(2).lstsq(lib.eye(2)),
], ids=["solve", "symeig", "eig", "lstsq", "matrix_rank", "Tensor.solve", "Tensor.symeig",
        "Tensor.eig", "Tensor.lstsq"])
def test_removed_linear_algebra_names_the_replacement(call):
    error = check_error(call, RuntimeError,
                        "^This function was deprecated since version 1.9 and is now removed")
    assert "torch.linalg." in str(error)


def test_volatile_is_gone_with_a_warning():
    def use(lib):
        t = lib.ones(2)
        t.volatile = True
        return t.volatile, t.requires_grad
    same_with_warnings(use)


def test_non_inplace_resize():
    x = np.arange(6, dtype=np.float32)
    got = same_with_warnings(lambda lib: lib.tensor(x).resize(2, 3))
    same_with_warnings(lambda lib: lib.tensor(x).resize_as(lib.ones(3, 2)))
    source = ember.tensor(x)
    with pytest.warns(UserWarning, match="non-inplace resize is deprecated"):
        source.resize(6)[0] = 7         # a copy, as torch's
        check_error(lambda lib: lib.tensor(x).resize(4), RuntimeError,
                    r"^requested resize to 4 \(4 elements in total\), but the given tensor "
                    r"has a size of 6 \(6 elements\)")
    assert source[0].item() == 0 and got.shape == (2, 3)


def test_build_flags_and_small_helpers():
    assert ember.has_lapack and ember.has_spectral
    assert ember.has_mkl == ember.backends.mkl.is_available()
    for lib in (torch, ember):
        assert lib.is_storage(lib.ones(2).untyped_storage())
        assert not lib.is_storage(lib.ones(2))
        assert lib.get_device(lib.ones(2)) == -1
        assert lib.set_flush_denormal(False) is True
    assert ember.set_flush_denormal(True) is False      # NumPy cannot flush denormals


@pytest.mark.parametrize("call", [
    lambda lib: lib.is_autocast_cpu_enabled(),
    lambda lib: lib.get_autocast_cpu_dtype(),
    lambda lib: lib.get_autocast_gpu_dtype(),
    lambda lib: (lib.set_autocast_cpu_enabled(True), lib.is_autocast_enabled("cpu"),
                 lib.set_autocast_cpu_enabled(False)),
    lambda lib: (lib.set_autocast_cpu_dtype(lib.float16), lib.get_autocast_dtype("cpu"),
                 lib.set_autocast_cpu_dtype(lib.bfloat16)),
    lambda lib: (lib.set_autocast_gpu_dtype(lib.bfloat16), lib.get_autocast_dtype("cuda"),
                 lib.set_autocast_gpu_dtype(lib.float16)),
])
def test_deprecated_autocast_spellings(call):
    same_with_warnings(call)


def _scaled_matmul(lib, cast_inputs, decorate):
    """A custom Function decorated with custom_fwd/custom_bwd, run under CPU autocast: its
    output dtype, what forward and backward saw, and the gradients."""
    seen = []
    fwd = decorate(lib, "fwd", cast_inputs)
    bwd = decorate(lib, "bwd", None)

    class ScaledMatmul(lib.autograd.Function):
        @staticmethod
        @fwd
        def forward(ctx, a, b):
            seen.append(("fwd", str(a.dtype), lib.is_autocast_enabled("cpu")))
            ctx.save_for_backward(a, b)
            return a.mm(b) * 2

        @staticmethod
        @bwd
        def backward(ctx, grad):
            a, b = ctx.saved_tensors
            seen.append(("bwd", lib.is_autocast_enabled("cpu"), str(grad.dtype)))
            return grad.mm(b.t()) * 2, a.t().mm(grad) * 2

    rng = np.random.default_rng(0)
    a = lib.tensor(rng.standard_normal((3, 4)).astype(np.float32), requires_grad=True)
    b = lib.tensor(rng.standard_normal((4, 2)).astype(np.float32), requires_grad=True)
    with lib.autocast("cpu"):
        out = ScaledMatmul.apply(a, b)
        out.float().sum().backward()
    return (str(out.dtype), seen, a.grad.float().numpy().round(2).tolist(),
            b.grad.float().numpy().round(2).tolist())


def _amp_decorator(lib, which, cast_inputs):
    if which == "fwd":
        return lib.amp.custom_fwd(device_type="cpu", cast_inputs=cast_inputs and
                                  getattr(lib, cast_inputs))
    return lib.amp.custom_bwd(device_type="cpu")


@pytest.mark.parametrize("cast_inputs", [None, "float32", "bfloat16"])
def test_custom_fwd_and_bwd(cast_inputs):
    got = _scaled_matmul(ember, cast_inputs, _amp_decorator)
    expected = _scaled_matmul(torch, cast_inputs, _amp_decorator)
    assert str(got).replace("ember", "torch") == str(expected)


def test_custom_fwd_errors_and_cuda_spellings():
    check_error(lambda lib: lib.amp.custom_fwd(device_type=1), ValueError,
                "^Expected `device_type` of type `str`")
    check_error(lambda lib: lib.amp.custom_fwd(lambda ctx, x: x), TypeError,
                "missing 1 required keyword-only argument: 'device_type'")

    def cuda_spelling(lib):
        class Twice(lib.autograd.Function):
            @staticmethod
            @lib.cuda.amp.custom_fwd
            def forward(ctx, x):
                return x * 2

            @staticmethod
            @lib.cuda.amp.custom_bwd
            def backward(ctx, grad):
                return grad * 2
        x = lib.ones(2, requires_grad=True)
        Twice.apply(x).sum().backward()
        return x.grad.tolist()
    expected, torch_warnings = _run_recording(cuda_spelling, torch)
    got, ember_warnings = _run_recording(cuda_spelling, ember)
    assert got == expected
    assert ember_warnings == torch_warnings


X = np.array([[-1.5, 2.0], [3.0, -4.25]], dtype=np.float32)


@pytest.mark.parametrize("call", [
    lambda lib, x: x.polygamma(1),
    lambda lib, x: x.abs().polygamma_(2),
    lambda lib, x: x.prelu(lib.tensor([0.25])),
    lambda lib, x: x.hardshrink(2.5),
    lambda lib, x: x.hardshrink(),
    lambda lib, x: x.clone().map_(lib.tensor([1.0, 2.0]), lambda a, b: a * 10 + b),
], ids=["polygamma", "polygamma_", "prelu", "hardshrink", "hardshrink-default", "map_"])
def test_tensor_methods(call):
    """torch's Tensor methods (Tensor.polygamma(n) took n as the tensor before)."""
    got, expected = call(ember, ember.tensor(X)), call(torch, torch.tensor(X))
    np.testing.assert_allclose(got.numpy(), expected.numpy(), rtol=1e-5)


def test_map_and_const_data_ptr():
    check_error(lambda lib: lib.tensor(X).map_(lib.ones(3), lambda a, b: a), RuntimeError,
                r"^The expanded size of the tensor \(2\) must match the existing size \(3\)")
    x = ember.tensor(X)
    assert x.const_data_ptr() == x.data_ptr()


def test_reduction_module_of_functional():
    def fn(lib):
        reduction = lib.nn.functional._Reduction
        return ([reduction.get_enum(r) for r in ("none", "mean", "sum")],
                reduction.legacy_get_string(None, None, emit_warning=False),
                reduction.legacy_get_string(True, False, emit_warning=False),
                reduction.legacy_get_enum(False, True, emit_warning=False))
    assert _run_recording(fn, ember) == _run_recording(fn, torch)
    check_error(lambda lib: lib.nn.functional._Reduction.get_enum("avg"), ValueError,
                "^avg is not a valid value for reduction$")

    def warned(lib):
        return lib.nn.functional._Reduction.legacy_get_string(False, None)
    assert _run_recording(warned, ember) == _run_recording(warned, torch)


def test_script_module_base_class_runs_eagerly():
    def fn(lib):
        class Net(lib.jit.ScriptModule):
            def __init__(self):
                super().__init__()
                self.fc = lib.nn.Linear(3, 2)

            @lib.jit.script_method
            def forward(self, x):
                return self.fc(x).relu()

        lib.manual_seed(0)
        net = Net()
        return net(lib.ones(4, 3)), sorted(net.state_dict()), \
            isinstance(net, lib.nn.Module)
    e, t = fn(ember), fn(torch)
    assert np.array_equal(e[0].detach().numpy(), t[0].detach().numpy())
    assert e[1:] == t[1:]
