"""ember.fft (ember/fft.py, ember/ops/spectral.py) against torch.fft.

The transforms have complex outputs (or inputs), so `check_transform` below pushes a
complex upstream gradient where the output is complex; the oracle's `check` (real upstream
gradients) covers the real-valued helpers.
"""
import numpy as np
import pytest
import torch

import ember
import ember.fft
from oracle import TOL, assert_same, check, check_error, to_ember, to_torch

DTYPES = ["float32", "float64"]
NORMS = [None, "backward", "ortho", "forward"]


def _random(shape, dtype: str, complex_values: bool, seed: int = 0) -> np.ndarray:
    r = np.random.default_rng(seed)
    a = r.standard_normal(shape)
    if complex_values:
        a = a + 1j * r.standard_normal(shape)
        return a.astype(np.complex64 if dtype == "float32" else np.complex128)
    return a.astype(dtype)


def _numpy(t) -> np.ndarray:
    if isinstance(t, torch.Tensor):
        t = t.resolve_conj()    # torch's ihfft returns a lazily conjugated tensor
    return t.detach().numpy()


def check_transform(fn, *arrays, grad: bool = True, non_contiguous: bool = False,
                    double_backward: bool = False, seed: int = 1):
    """fn(lib, *tensors) on torch and on ember: same values, dtypes, shapes and input
    gradients under the same (complex where the output is complex) upstream gradient.

    double_backward: also differentiate the input gradient again, with respect to the
    upstream gradient (for these linear maps that is the forward transform again)."""
    real_dtype = np.empty(0, arrays[0].dtype).real.dtype.name
    atol, rtol = TOL[real_dtype] if real_dtype in TOL else TOL["float32"]
    tin = [to_torch(a, grad, non_contiguous=non_contiguous) for a in arrays]
    ein = [to_ember(a, grad, non_contiguous=non_contiguous) for a in arrays]
    tout, eout = fn(torch, *tin), fn(ember, *ein)
    assert_same(eout, tout.resolve_conj(), atol, rtol)
    if not grad:
        return eout
    assert eout.requires_grad == tout.requires_grad
    upstream = _random(tuple(tout.shape), real_dtype, tout.is_complex(), seed)
    tseed, eseed = (to_torch(upstream, double_backward), to_ember(upstream, double_backward))
    tgrads = torch.autograd.grad(tout, tin, tseed, create_graph=double_backward)
    egrads = ember.autograd.grad(eout, ein, eseed, create_graph=double_backward)
    for i, (tg, eg) in enumerate(zip(tgrads, egrads)):
        assert_same(eg, tg.resolve_conj(), atol * 10, rtol * 10, f"grad of input {i}")
    if double_backward:
        again = _random(tuple(tin[0].shape), real_dtype, tin[0].is_complex(), seed + 1)
        tseed_grad, = torch.autograd.grad(tgrads[0], tseed, to_torch(again))
        eseed_grad, = ember.autograd.grad(egrads[0], eseed, to_ember(again))
        assert_same(eseed_grad, tseed_grad.resolve_conj(), atol * 10, rtol * 10,
                    "double backward")
    return eout


# (transform, input is complex) for every transform with the same argument shape.
ONE_DIM = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"]
MANY_DIM = ["fftn", "ifftn", "rfftn", "irfftn", "hfftn", "ihfftn"]
TWO_DIM = ["fft2", "ifft2", "rfft2", "irfft2", "hfft2", "ihfft2"]
REAL_ONLY = {"rfft", "ihfft", "rfftn", "ihfftn", "rfft2", "ihfft2"}


def _inputs_for(name: str, dtype: str, shape) -> list:
    """Real input for the real-only transforms; real and complex for the others."""
    kinds = [False] if name in REAL_ONLY else [False, True]
    return [_random(shape, dtype, c) for c in kinds]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("name", ONE_DIM)
def test_one_dim_transforms(name, norm, dtype):
    for x in _inputs_for(name, dtype, (3, 6)):
        check_transform(lambda lib, t: getattr(lib.fft, name)(t, norm=norm), x)
        check_transform(lambda lib, t: getattr(lib.fft, name)(t, dim=0, norm=norm), x)


@pytest.mark.parametrize("n", [1, 4, 5, 9])
@pytest.mark.parametrize("name", ONE_DIM)
def test_one_dim_signal_length(name, n):
    """n trims or zero-pads the input (for irfft / hfft: sets the real output's length)."""
    for x in _inputs_for(name, "float64", (2, 5, 3)):
        check_transform(lambda lib, t: getattr(lib.fft, name)(t, n, 1), x)
        check_transform(lambda lib, t: getattr(lib.fft, name)(t, n=n, dim=-3, norm="ortho"), x)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", ONE_DIM + MANY_DIM + TWO_DIM)
def test_non_contiguous(name, dtype):
    for x in _inputs_for(name, dtype, (4, 5)):
        check_transform(lambda lib, t: getattr(lib.fft, name)(t), x, non_contiguous=True)
        check_transform(lambda lib, t: getattr(lib.fft, name)(t[:, ::2]), x)


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("name", MANY_DIM + TWO_DIM)
def test_many_dim_transforms(name, norm):
    for x in _inputs_for(name, "float64", (2, 3, 4)):
        check_transform(lambda lib, t: getattr(lib.fft, name)(t, norm=norm), x)
        check_transform(lambda lib, t: getattr(lib.fft, name)(t, dim=(0, 2), norm=norm), x)
        check_transform(lambda lib, t: getattr(lib.fft, name)(t, dim=(-1, 0), norm=norm), x)


@pytest.mark.parametrize("name", MANY_DIM)
def test_many_dim_shapes(name):
    """s alone picks the last len(s) dims; -1 in s keeps a dim's size; s pads and trims."""
    for x in _inputs_for(name, "float32", (2, 3, 4)):
        check_transform(lambda lib, t: getattr(lib.fft, name)(t, s=(5, 3)), x)
        check_transform(lambda lib, t: getattr(lib.fft, name)(t, s=(-1, 7)), x)
        check_transform(lambda lib, t: getattr(lib.fft, name)(t, s=(2, -1), dim=(2, 0)), x)
        check_transform(lambda lib, t: getattr(lib.fft, name)(t, s=[6], dim=[1]), x)
        check_transform(lambda lib, t: getattr(lib.fft, name)(t, s=3), x)
        check_transform(lambda lib, t: getattr(lib.fft, name)(t, dim=1), x)


@pytest.mark.parametrize("name", TWO_DIM)
def test_two_dim_shapes(name):
    for x in _inputs_for(name, "float64", (3, 4, 5)):
        check_transform(lambda lib, t: getattr(lib.fft, name)(t, s=(2, 6)), x)
        check_transform(lambda lib, t: getattr(lib.fft, name)(t, dim=(0, 2)), x)
        check_transform(lambda lib, t: getattr(lib.fft, name)(t, (4, 4), (1, 0), "ortho"), x)


@pytest.mark.parametrize("name", ["fft", "ifft", "fftn", "ifftn"])
def test_complex_transforms_of_no_dims(name):
    """A zero-dim tensor (and dim=[] for fftn) is transformed over no dims: a complex copy."""
    x = _random((), "float64", False)
    check_transform(lambda lib, t: getattr(lib.fft, name)(t.reshape(1)), x)
    if name.endswith("n"):
        transform = getattr(ember.fft, name)
        check_transform(lambda lib, t: getattr(lib.fft, name)(t), x)
        check_transform(lambda lib, t: getattr(lib.fft, name)(t, dim=[]),
                        _random((2, 3), "float32", False))
        check_transform(lambda lib, t: getattr(lib.fft, name)(t, s=[]),
                        _random((2, 3), "float32", True))
        assert transform(ember.ones(2, 3), dim=[]).dtype == ember.complex64


# torch 2.13's CPU (MKL) transforms fail on empty batches ("MKL FFT error: ...
# Inconsistent configuration parameters"); the right answer is an empty tensor.
EMPTY_BATCH = [("fft", (0, 6), -1, (0, 6)), ("ifft", (3, 0, 6), -1, (3, 0, 6)),
               ("rfft", (0, 6), -1, (0, 4)), ("irfft", (0, 6), -1, (0, 10)),
               ("hfft", (2, 0, 6), 2, (2, 0, 10)), ("ihfft", (0, 6), 1, (0, 4)),
               ("fftn", (0, 6), [1], (0, 6)), ("rfft2", (0, 3, 6), (-2, -1), (0, 3, 4)),
               ("irfftn", (0, 6), (1,), (0, 10)), ("ihfft2", (3, 0, 6), (0, 2), (3, 0, 4))]


@pytest.mark.parametrize("name, shape, dim, out_shape", EMPTY_BATCH)
def test_empty_batch(name, shape, dim, out_shape):
    x = ember.zeros(shape, dtype=ember.float64, requires_grad=True)
    y = getattr(ember.fft, name)(x, dim=dim)
    assert tuple(y.shape) == out_shape
    real_output = name in ("irfft", "hfft", "irfftn")
    assert y.dtype == (ember.float64 if real_output else ember.complex128)
    y.backward(ember.zeros_like(y))
    assert x.grad.shape == x.shape and x.grad.dtype == ember.float64


@pytest.mark.parametrize("name", ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fft2",
                                  "irfftn"])
@pytest.mark.parametrize("dtype", ["int64", "int32", "bool"])
def test_integer_inputs_become_float(name, dtype):
    x = (np.arange(24).reshape(4, 6) % 5).astype(dtype)
    check_transform(lambda lib, t: getattr(lib.fft, name)(t), x, grad=False)


def test_integer_inputs_follow_default_dtype():
    x = np.arange(6)
    torch.set_default_dtype(torch.float64)
    ember.set_default_dtype(ember.float64)
    try:
        check_transform(lambda lib, t: lib.fft.rfft(t), x, grad=False)
        check_transform(lambda lib, t: lib.fft.fftfreq(5) + t[0], x, grad=False)
    finally:
        torch.set_default_dtype(torch.float32)
        ember.set_default_dtype(ember.float32)


@pytest.mark.parametrize("name", ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft", "fftn",
                                  "irfft2"])
def test_double_backward(name):
    for x in _inputs_for(name, "float64", (3, 4)):
        check_transform(lambda lib, t: getattr(lib.fft, name)(t, norm="ortho"), x,
                        double_backward=True)
        check_transform(lambda lib, t: getattr(lib.fft, name)(t), x, double_backward=True)


def test_grad_fn_names():
    x = ember.randn(4, 6, requires_grad=True)
    z = ember.fft.fft(x)
    assert type(z.grad_fn).__name__ == "FftR2CBackward0"
    assert type(ember.fft.ifft(z).grad_fn).__name__ == "FftC2CBackward0"
    assert type(ember.fft.irfft(z).grad_fn).__name__ == "FftC2RBackward0"
    assert type(ember.fft.rfft(x).grad_fn).__name__ == "FftR2CBackward0"
    assert not ember.fft.fft(x.detach()).requires_grad


def test_round_trips():
    x = ember.randn(3, 8, dtype=ember.float64)
    for norm in NORMS:
        np.testing.assert_allclose(ember.fft.ifft(ember.fft.fft(x, norm=norm), norm=norm)
                                   .real.numpy(), x.numpy(), atol=1e-12)
        np.testing.assert_allclose(ember.fft.irfft(ember.fft.rfft(x, norm=norm), 8, norm=norm)
                                   .numpy(), x.numpy(), atol=1e-12)
        np.testing.assert_allclose(ember.fft.hfft(ember.fft.ihfft(x, norm=norm), 8, norm=norm)
                                   .numpy(), x.numpy(), atol=1e-12)


def test_out():
    x = _random((3, 4), "float32", False)
    check_transform(lambda lib, t: lib.fft.fft(t, out=lib.empty(0, dtype=lib.complex64)), x,
                    grad=False)
    check_transform(lambda lib, t: lib.fft.irfft(t, out=lib.empty(0)), x, grad=False)
    check_transform(lambda lib, t: lib.fft.rfftn(t, out=lib.empty(0, dtype=lib.complex64)), x,
                    grad=False)
    check_error(lambda lib: lib.fft.fft(lib.ones(3), out=lib.empty(3)), RuntimeError,
                "^fft expects a complex output tensor, but got Float")
    check_error(lambda lib: lib.fft.irfft(lib.ones(3), out=lib.empty(4, dtype=lib.complex64)),
                RuntimeError, "^irfft expects a floating point output tensor, but got ComplexFloat")


ERRORS = [
    (lambda lib: lib.fft.fft(lib.ones(3), norm="bad"), RuntimeError,
     '^Invalid normalization mode: "bad"'),
    (lambda lib: lib.fft.rfftn(lib.ones(3, 3), norm="Ortho"), RuntimeError,
     "^Invalid normalization mode"),
    (lambda lib: lib.fft.fft(lib.ones(3), norm=1), TypeError, "argument 'norm' must be str"),
    (lambda lib: lib.fft.fft(lib.ones(3), n=0), RuntimeError,
     r"^Invalid number of data points \(0\) specified"),
    (lambda lib: lib.fft.irfft(lib.ones(3), n=-2), RuntimeError,
     r"^Invalid number of data points \(-2\) specified"),
    (lambda lib: lib.fft.irfft(lib.ones(1)), RuntimeError,
     r"^Invalid number of data points \(0\) specified"),
    (lambda lib: lib.fft.fft(lib.ones(3, 0)), RuntimeError,
     r"^Invalid number of data points \(0\) specified"),
    (lambda lib: lib.fft.fftn(lib.ones(3, 4), s=(0, -1)), RuntimeError,
     r"^Invalid number of data points \(0\) specified"),
    (lambda lib: lib.fft.fft(lib.ones(3), n=2.5), TypeError, "argument 'n' must be int"),
    (lambda lib: lib.fft.fft(lib.ones(3), dim=(0,)), TypeError, "argument 'dim' must be int"),
    (lambda lib: lib.fft.fft([1.0, 2.0]), TypeError, "argument 'input' .*must be Tensor"),
    (lambda lib: lib.fft.fft(lib.ones(3, 4), dim=2), IndexError,
     r"^Dimension out of range \(expected to be in range of \[-2, 1\], but got 2\)"),
    (lambda lib: lib.fft.rfft(lib.ones(3, 4), dim=-3), IndexError, "^Dimension out of range"),
    (lambda lib: lib.fft.fft(lib.tensor(1.0)), IndexError,
     "^Dimension specified as -1 but tensor has no dimensions"),
    (lambda lib: lib.fft.fft2(lib.ones(3)), IndexError, "^Dimension out of range"),
    (lambda lib: lib.fft.fft2(lib.ones(3, 4), s=(2,)), RuntimeError,
     "^When given, dim and shape arguments must have the same length"),
    (lambda lib: lib.fft.fftn(lib.ones(3, 4), s=(2, 3, 4)), RuntimeError,
     "^Got shape with 3 values but input tensor only has 2 dimensions."),
    (lambda lib: lib.fft.fftn(lib.ones(3, 4), dim=(0, -2)), RuntimeError,
     "^FFT dims must be unique"),
    (lambda lib: lib.fft.rfft(lib.ones(3, dtype=lib.complex64)), RuntimeError,
     "^rfft expects a real input tensor, but got ComplexFloat"),
    (lambda lib: lib.fft.ihfft(lib.ones(3, 3, dtype=lib.complex128)), RuntimeError,
     "^ihfft expects a real input tensor, but got ComplexDouble"),
    (lambda lib: lib.fft.rfft2(lib.ones(3, 3, dtype=lib.complex128)), RuntimeError,
     "^rfftn expects a real-valued input tensor, but got ComplexDouble"),
    (lambda lib: lib.fft.ihfftn(lib.ones(3, 3, dtype=lib.complex64)), RuntimeError,
     "^Only supports floating-point dtypes, but found: ComplexFloat"),
    (lambda lib: lib.fft.rfftn(lib.ones(3, 4), dim=[]), RuntimeError,
     "^rfftn must transform at least one axis"),
    (lambda lib: lib.fft.irfftn(lib.ones(3, 4), s=[]), RuntimeError,
     "^irfftn must transform at least one axis"),
    (lambda lib: lib.fft.hfftn(lib.ones(3, 4), dim=[]), RuntimeError,
     "^hfftn must transform at least one axis"),
    (lambda lib: lib.fft.fft(lib.ones(4, dtype=lib.float16)), RuntimeError,
     "^Unsupported dtype Half"),
    (lambda lib: lib.fft.rfft(lib.ones(4, dtype=lib.bfloat16)), RuntimeError,
     "^Unsupported dtype BFloat16"),
    (lambda lib: lib.fft.fft(lib.ones(3, requires_grad=True),
                             out=lib.empty(3, dtype=lib.complex64)), RuntimeError,
     "functions with out=... arguments don't support automatic differentiation"),
]


@pytest.mark.parametrize("fn, error, match", ERRORS)
def test_errors(fn, error, match):
    check_error(fn, error, match)


# ---------------------------------------------------------------- fftfreq, rfftfreq
@pytest.mark.parametrize("name", ["fftfreq", "rfftfreq"])
@pytest.mark.parametrize("n", [0, 1, 2, 5, 8])
def test_frequencies(name, n):
    check(lambda lib: getattr(lib.fft, name)(n), grad=False)
    check(lambda lib: getattr(lib.fft, name)(n, 0.3), grad=False)
    check(lambda lib: getattr(lib.fft, name)(n, d=2, dtype=lib.float64), grad=False)


@pytest.mark.parametrize("name", ["fftfreq", "rfftfreq"])
def test_frequencies_options(name):
    check(lambda lib: getattr(lib.fft, name)(4, d=0.0), grad=False)     # inf and nan
    check(lambda lib: getattr(lib.fft, name)(6, requires_grad=True), grad=False)
    check(lambda lib: getattr(lib.fft, name)(7, out=lib.empty(0, dtype=lib.float64)),
          grad=False)
    assert getattr(ember.fft, name)(6, requires_grad=True).requires_grad
    check_error(lambda lib: getattr(lib.fft, name)(5, dtype=lib.int64), RuntimeError,
                f"^{name} requires a floating point or complex dtype")
    check_error(lambda lib: getattr(lib.fft, name)(5, dtype=lib.complex64), NotImplementedError,
                "not implemented for 'ComplexFloat'")
    check_error(lambda lib: getattr(lib.fft, name)(2.5), TypeError, "argument 'n'")


def test_fftfreq_negative_length():
    check_error(lambda lib: lib.fft.fftfreq(-1), RuntimeError,
                r"^Trying to create tensor with negative dimension -1: \[-1\]")


# ---------------------------------------------------------------- fftshift, ifftshift
SHIFTS = [
    (lambda lib, x: lib.fft.fftshift(x), (5,)),
    (lambda lib, x: lib.fft.ifftshift(x), (5,)),
    (lambda lib, x: lib.fft.fftshift(x), (4, 5)),
    (lambda lib, x: lib.fft.ifftshift(x), (3, 6)),
    (lambda lib, x: lib.fft.fftshift(x, dim=-1), (3, 5)),
    (lambda lib, x: lib.fft.ifftshift(x, dim=(0, 2)), (3, 4, 5)),
    (lambda lib, x: lib.fft.fftshift(x, dim=[1]), (2, 7)),
    (lambda lib, x: lib.fft.fftshift(x), (0, 3)),
    (lambda lib, x: lib.fft.ifftshift(lib.fft.fftshift(x)), (5, 4)),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("fn, shape", SHIFTS)
def test_shifts(fn, shape, dtype):
    check(fn, shape, dtype=dtype)
    check(fn, shape, dtype=dtype, non_contiguous=True)


def test_shifts_of_complex_and_integer_tensors():
    check_transform(lambda lib, t: lib.fft.fftshift(t, dim=0), _random((5, 2), "float32", True))
    check(lambda lib, x: lib.fft.ifftshift(x), np.arange(12).reshape(3, 4), grad=False)


def test_shift_errors():
    check_error(lambda lib: lib.fft.fftshift(lib.tensor(1.0)), RuntimeError, "`shifts` required")
    check_error(lambda lib: lib.fft.fftshift(lib.ones(3, 4), dim=2), IndexError,
                "^Dimension out of range")
