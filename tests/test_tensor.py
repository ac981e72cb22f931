"""The Tensor object against torch: identity (size, strides, views), devices, .to(),
conversions (item, tolist, numpy, casts), Python protocols and their errors."""
import pickle
import warnings

import numpy as np
import pytest
import torch

import ember
from oracle import assert_same, check_error, same




VIEWS = [
    lambda lib: lib.ones(3, 4), lambda lib: lib.ones(3, 4).t(), lambda lib: lib.ones(3, 4)[1:, 2:],
    lambda lib: lib.ones(4, 6)[::2, 1::3], lambda lib: lib.ones(3, 4)[1],
    lambda lib: lib.ones(3, 1).expand(3, 4), lambda lib: lib.ones(2, 3, 4).permute(2, 0, 1),
    lambda lib: lib.ones(()), lambda lib: lib.ones(0, 3), lambda lib: lib.ones(2, 3).unsqueeze(1),
]


@pytest.mark.parametrize("make", VIEWS)
def test_geometry(make):
    def fn(lib):
        x = make(lib)
        return (tuple(x.size()), tuple(x.shape), x.stride(), x.storage_offset(),
                x.is_contiguous(), x.dim(), x.ndim, x.numel(), x.nelement(), x.element_size(),
                x.ndimension(), [x.size(d) for d in range(-x.dim(), x.dim())],
                [x.stride(d) for d in range(x.dim())])
    same(fn)


def test_size_object():
    for lib in (torch, ember):
        s = lib.ones(2, 3).size()
        assert isinstance(s, tuple) and isinstance(s, lib.Size)
    assert repr(ember.ones(2, 3).shape) == "torch.Size([2, 3])"
    assert ember.Size([2, 3]).numel() == 6 and isinstance(ember.ones(2, 3).shape[1:], ember.Size)
    for lib in (torch, ember):
        assert repr((1,) + lib.ones(2, 3).shape + (4,)) == "torch.Size([1, 2, 3, 4])"
    check_error(lambda lib: lib.ones(2, 3).size(2), IndexError,
                r"^Dimension out of range \(expected to be in range of \[-2, 1\], but got 2\)")


# ---------------------------------------------------------------- devices
def test_device_objects():
    for lib in (torch, ember):
        d = lib.device("cuda:1")
        assert (d.type, d.index, str(d), repr(d)) == ("cuda", 1, "cuda:1",
                                                      "device(type='cuda', index=1)")
        assert repr(lib.device("cpu")) == "device(type='cpu')" and str(lib.device("cpu")) == "cpu"
        assert lib.device("cuda", 0) == lib.device("cuda:0")
        assert lib.device("cpu") != lib.device("cpu", 0)
        assert (lib.device("cpu") == "cpu") is False  # torch never equals strings
        assert lib.device(lib.device("cpu")) == lib.device("cpu")
        assert lib.ones(2).device == lib.device("cpu") and lib.ones(2).device.type == "cpu"
        assert lib.ones(2).is_cuda is False and lib.ones(2).get_device() == -1
        assert len({lib.device("cpu"), lib.device("cpu")}) == 1
    assert pickle.loads(pickle.dumps(ember.device("cuda:2"))) == ember.device("cuda:2")


@pytest.mark.parametrize("spec,error,match", [
    ("gpu", RuntimeError, "^Expected one of cpu, cuda"),
    ("cuda:x", RuntimeError, "^Invalid device string: 'cuda:x'"),
    ("cuda:-1", RuntimeError, "^Invalid device string"),
    (None, TypeError, r"^device\(\) received an invalid combination of arguments"),
    (0, RuntimeError, "^Cannot access accelerator device when none is available"),
])
def test_device_errors(spec, error, match):
    check_error(lambda lib: lib.device(spec), error, match)
    check_error(lambda lib: lib.device("cuda", -1), RuntimeError,
                "^Device index must not be negative")
    check_error(lambda lib: lib.device("cpu:0", 0), RuntimeError,
                "^type \\(string\\) must not include an index because index was passed")


@pytest.mark.parametrize("fn", [
    lambda lib: lib.ones(2).cuda(), lambda lib: lib.ones(2).to("cuda"),
    lambda lib: lib.ones(2).to(lib.device("cuda", 0)), lambda lib: lib.zeros(2, device="cuda"),
    lambda lib: lib.tensor([1.0], device="cuda"), lambda lib: lib.randn(2, device="cuda"),
    lambda lib: lib.arange(3, device="cuda"), lambda lib: lib.ones(2).to(device="cuda:0"),
    lambda lib: lib.cuda.current_device(),
])
def test_cuda_refused_like_a_cpu_build(fn):
    check_error(fn, AssertionError, "^Torch not compiled with CUDA enabled")


def test_cuda_and_backends_namespaces():
    for lib in (torch, ember):
        assert lib.cuda.is_available() is False and lib.cuda.device_count() == 0
        lib.cuda.manual_seed(1)
        lib.cuda.manual_seed_all(1)
        old = (lib.backends.cudnn.benchmark, lib.backends.cudnn.deterministic)
        lib.backends.cudnn.benchmark = True
        lib.backends.cudnn.deterministic = True
        assert lib.backends.cudnn.benchmark and lib.backends.cudnn.deterministic
        lib.backends.cudnn.benchmark, lib.backends.cudnn.deterministic = old
        assert lib.backends.mps.is_available() is False
    assert "cuda" if ember.cuda.is_available() else "cpu" == "cpu"


# ---------------------------------------------------------------- .to() and casts
def test_to_returns_self_when_nothing_changes():
    for lib in (torch, ember):
        x = lib.ones(2, 3)
        for y in (x.to("cpu"), x.to(lib.float32), x.to(device="cpu", dtype=lib.float32),
                  x.to(lib.device("cpu")), x.to(x), x.cpu(), x.float(), x.type(lib.float32),
                  x.to("cpu", lib.float32), x.to(lib.float32, non_blocking=True)):
            assert y is x
        c = x.to(lib.float32, copy=True)
        assert c is not x and c.data_ptr() != x.data_ptr()


@pytest.mark.parametrize("fn", [
    lambda lib, x: x.to(lib.float64), lambda lib, x: x.to("cpu", lib.int32),
    lambda lib, x: x.to(lib.ones(1, dtype=lib.int8)), lambda lib, x: x.to(device="cpu", dtype=lib.int16),
    lambda lib, x: x.to(dtype=lib.bool), lambda lib, x: x.double(), lambda lib, x: x.half(),
    lambda lib, x: x.bfloat16(), lambda lib, x: x.long(), lambda lib, x: x.int(),
    lambda lib, x: x.short(), lambda lib, x: x.char(), lambda lib, x: x.byte(),
    lambda lib, x: x.bool(), lambda lib, x: x.float(), lambda lib, x: x.type(lib.int64),
])
def test_casts(fn):
    same(lambda lib: fn(lib, lib.tensor([[1.7, -1.7, 0.0], [2.5, 300.0, -0.4]]).abs()))


def test_cast_is_differentiable_and_tracks_dtype():
    def fn(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        y = x.double()
        (y * y).sum().backward()
        return y, x.grad, type(y.grad_fn).__name__
    same(fn)


def test_to_bad_arguments():
    check_error(lambda lib: lib.ones(2).to("foo"), RuntimeError, "^Expected one of cpu")
    check_error(lambda lib: lib.ones(2).to(dtype=lib.int8, foo=1), TypeError,
                r"^to\(\) received an invalid combination of arguments")


# ---------------------------------------------------------------- conversions
@pytest.mark.parametrize("fn", [
    lambda lib: lib.tensor(7).item(), lambda lib: lib.tensor([2.5]).item(),
    lambda lib: lib.ones(1, 1, dtype=lib.float64).item(), lambda lib: lib.tensor(True).item(),
    lambda lib: type(lib.tensor(7.0).item()).__name__, lambda lib: type(lib.tensor(7).item()).__name__,
    lambda lib: lib.tensor([[1.5, 2]]).tolist(), lambda lib: lib.tensor(2.5).tolist(),
    lambda lib: lib.tensor([[True]]).tolist(), lambda lib: lib.ones(2, dtype=lib.bfloat16).tolist(),
    lambda lib: lib.tensor([1, 2], dtype=lib.int8).tolist(), lambda lib: lib.tensor(1 + 2j).item(),
    lambda lib: float(lib.tensor([2.5])), lambda lib: int(lib.tensor(3.9)),
    lambda lib: complex(lib.tensor(2.0)), lambda lib: bool(lib.tensor([0.0])),
    lambda lib: bool(lib.tensor(3)), lambda lib: [10, 20, 30][lib.tensor(1)],
    lambda lib: [10, 20, 30][lib.tensor([2])], lambda lib: len(lib.ones(3, 2)),
    lambda lib: [t.tolist() for t in lib.tensor([[1, 2], [3, 4]])],
    lambda lib: "{:.2f}".format(lib.tensor(1.2345)),
])
def test_python_conversions(fn):
    same(fn)


@pytest.mark.parametrize("fn,error,match", [
    (lambda lib: lib.ones(2).item(), RuntimeError,
     "^a Tensor with 2 elements cannot be converted to Scalar"),
    (lambda lib: float(lib.ones(2)), ValueError,
     "^only one element tensors can be converted to Python scalars"),
    (lambda lib: int(lib.ones(2)), ValueError,
     "^only one element tensors can be converted to Python scalars"),
    (lambda lib: bool(lib.ones(2)), RuntimeError,
     "^Boolean value of Tensor with more than one value is ambiguous"),
    (lambda lib: bool(lib.ones(0)), RuntimeError,
     "^Boolean value of Tensor with no values is ambiguous"),
    (lambda lib: len(lib.tensor(1.0)), TypeError, "^len\\(\\) of a 0-d tensor"),
    (lambda lib: iter(lib.tensor(1.0)), TypeError, "^iteration over a 0-d tensor"),
    (lambda lib: [1, 2][lib.tensor(1.0)], TypeError,
     "^only integer tensors of a single element can be converted to an index"),
    (lambda lib: [1, 2][lib.tensor([0, 1])], TypeError,
     "^only integer tensors of a single element can be converted to an index"),
    (lambda lib: lib.ones(2, requires_grad=True).numpy(), RuntimeError,
     r"^Can't call numpy\(\) on Tensor that requires grad. Use tensor.detach\(\).numpy\(\)"),
    (lambda lib: lib.ones(2, dtype=lib.bfloat16).numpy(), TypeError,
     "^Got unsupported ScalarType BFloat16"),
])
def test_conversion_errors(fn, error, match):
    check_error(fn, error, match)


def test_numpy_shares_memory():
    for lib in (torch, ember):
        x = lib.zeros(3)
        a = x.numpy()
        a[0] = 5
        x[1] = 7
        assert x.tolist() == [5.0, 7.0, 0.0] and a.tolist() == [5.0, 7.0, 0.0]
        assert lib.ones(2, requires_grad=True).numpy(force=True).tolist() == [1.0, 1.0]
        assert np.asarray(lib.ones(2)).dtype == np.float32


def test_clone_copies_and_is_differentiable():
    def fn(lib):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        c = x.clone()
        (c * 3).sum().backward()
        d = x.detach().clone()
        d[0] = 9.0
        return c, x.grad, type(c.grad_fn).__name__, x.tolist(), c.is_leaf
    same(fn)


def test_detach_shares_memory_and_version():
    def fn(lib):
        x = lib.ones(3)
        d = x.detach()
        d.mul_(2)
        return x.tolist(), x._version, d._version, d.data_ptr() == x.data_ptr()
    assert fn(ember) == fn(torch)


def test_hash_identity_and_sets():
    x = ember.ones(2)
    assert {x: 1}[x] == 1 and len({x, ember.ones(2)}) == 2


def test_deepcopy_and_pickle():
    import copy
    for lib in (torch, ember):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        x.grad = lib.ones(2)
        y = copy.deepcopy(x)
        assert y.requires_grad and y.grad.tolist() == [1.0, 1.0] and y.data_ptr() != x.data_ptr()
        z = pickle.loads(pickle.dumps(x.detach()))
        assert z.tolist() == [1.0, 2.0]
    check_error(lambda lib: copy.deepcopy(lib.ones(2, requires_grad=True) * 2), RuntimeError,
                "^Only Tensors created explicitly by the user")


def test_is_floating_point_complex_signed():
    for name in ["bool", "uint8", "int8", "int64", "float16", "bfloat16", "float64", "complex64"]:
        e, t = ember.ones(1, dtype=getattr(ember, name)), torch.ones(1, dtype=getattr(torch, name))
        assert (e.is_floating_point(), e.is_complex(), e.is_signed()) == \
            (t.is_floating_point(), t.is_complex(), t.is_signed())
        assert ember.is_floating_point(e) == torch.is_floating_point(t)
        assert ember.is_tensor(e) and not ember.is_tensor([1]) and ember.numel(e) == 1


def test_clone_preserves_layout_and_contiguous_does_not():
    import torch
    for lib in (torch, ember):
        t = lib.ones(3, 4).t()
        assert t.clone().stride() == (1, 4)
        assert t.contiguous().stride() == (3, 1)
        assert t.clone(memory_format=lib.contiguous_format).stride() == (3, 1)
    assert repr(ember.contiguous_format) == "torch.contiguous_format"


@pytest.mark.parametrize("name", ["T", "mT", "H", "mH"])
@pytest.mark.parametrize("shape", [(), (3,), (2, 3), (2, 3, 4)])
@pytest.mark.parametrize("dtype", ["float32", "complex64"])
def test_transpose_properties(name, shape, dtype):
    """T, mT, H, mH: values (conjugated for H/mH of complex tensors), gradients, errors."""
    from oracle import check
    real = np.random.default_rng(0).standard_normal((2,) + shape)
    a = (real[0] + 1j * real[1] if dtype == "complex64" else real[0]).astype(dtype)
    rejected = {"mT": len(shape) == 1, "mH": len(shape) == 1, "H": len(shape) in (1, 3)}
    if name != "T" and shape == ():      # torch warns once per process: check ember's
        with pytest.warns(UserWarning, match=f"^Tensor.{name} is deprecated on 0-D"):
            getattr(ember.tensor(a), name)
    if rejected.get(name):
        check_error(lambda lib: getattr(lib.tensor(a), name), RuntimeError,
                    f"^tensor.{name} is only supported on matrices")
    elif dtype == "complex64":
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")       # the 0-D deprecation, checked above
            t, e = getattr(torch.tensor(a), name).resolve_conj(), getattr(ember.tensor(a), name)
        assert_same(e, t, 0, 0)
    else:
        check(lambda lib, x: getattr(x, name) * 1, a, dtype=dtype)


def test_as_subclass():
    def fn(lib):
        class Tagged(lib.Tensor):
            pass
        x = lib.ones(2, requires_grad=True)
        y = x.as_subclass(Tagged)
        (y * 2).sum().backward()
        plain = lib.ones(3)
        alias = plain.as_subclass(Tagged)
        alias.add_(1)
        with lib.no_grad():
            detached = x.as_subclass(Tagged)
        return (type(y).__name__, y.requires_grad, y.is_leaf, type(y.grad_fn).__name__,
                x.grad.tolist(), plain.tolist(), plain._version, alias._version,
                detached.requires_grad, detached.is_leaf, detached.grad_fn)
    assert fn(ember) == fn(torch)
    check_error(lambda lib: lib.ones(1).as_subclass(int), TypeError,
                "^Creating a Tensor subclass from a class that does not inherit from Tensor "
                "is not possible")


@pytest.mark.parametrize("dtype", ["int64", "int32", "int8", "uint8", "bool"])
def test_to_integer_casts_inf_and_nan_silently_as_torch(dtype):
    """transformers' T5 relative-position buckets cast log(0) = -inf to long: torch gives its
    values without a word, ember printed NumPy's 'invalid value encountered in cast'."""
    values = [float("-inf"), float("nan"), float("inf"), 1e30, -2.5]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = ember.tensor(values).to(getattr(ember, dtype)).tolist()
    assert got == torch.tensor(values).to(getattr(torch, dtype)).tolist()


def test_float_of_a_tensor_requiring_grad_warns_once():
    # torch (C++ TORCH_WARN_ONCE) warns at the first float() of such a tensor in grad mode;
    # the SDPA tutorial's float(out.sum()) shows it
    import subprocess
    import sys
    code = ("import warnings, {lib}\n"
            "t = {lib}.tensor(2.0, requires_grad=True)\n"
            "with {lib}.no_grad(): float(t)\n"
            "int(t); float(t.detach())\n"
            "with warnings.catch_warnings(record=True) as w:\n"
            "    warnings.simplefilter('always'); float(t); float(t * 2)\n"
            "print([str(x.message) for x in w])\n")
    outs = [subprocess.run([sys.executable, "-c", code.format(lib=lib)], capture_output=True,
                           text=True, check=True).stdout for lib in ("torch", "ember")]
    torch_out = outs[0].split(" (Triggered internally")[0]    # torch's C++ location suffix
    assert outs[1].startswith(torch_out) and "Converting a tensor with requires_grad" in torch_out
    assert outs[1].count("Converting") == outs[0].count("Converting") == 1
