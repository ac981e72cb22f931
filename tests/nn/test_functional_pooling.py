"""F.*pool* and the pooling modules against torch: values, indices, gradients (incl.
overlapping windows, ties); adaptive max and LP pooling in 3-d, fractional max pooling."""
import math

import numpy as np
import pytest
import torch

import ember
import ember.nn  # noqa: F401
import ember.nn.functional  # noqa: F401
from module_oracle import check_module
from oracle import check, check_error

MAX = [
    (2, (2, 3, 8, 8), dict(kernel_size=2)),
    (2, (2, 3, 9, 7), dict(kernel_size=3, stride=2, padding=1)),
    (2, (1, 2, 9, 9), dict(kernel_size=3, stride=2, ceil_mode=True)),
    (2, (1, 2, 10, 9), dict(kernel_size=(3, 2), stride=(2, 1), dilation=2)),
    (2, (3, 7, 7), dict(kernel_size=2)),
    (1, (2, 3, 11), dict(kernel_size=3, stride=2, padding=1, ceil_mode=True)),
    (3, (1, 2, 5, 6, 4), dict(kernel_size=2, stride=(1, 2, 2))),
    (2, (1, 1, 4, 4), dict(kernel_size=(2, 2), stride=())),  # empty stride: kernel_size
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("n,shape,kw", MAX)
def test_max_pool(dtype, n, shape, kw):
    check(lambda lib, x: getattr(lib.nn.functional, f"max_pool{n}d")(x, **kw, return_indices=True),
          shape, dtype=dtype)


def test_max_pool_ties_pick_first_index():
    x = np.zeros((1, 1, 4, 4), dtype=np.float32)
    check(lambda lib, x: lib.nn.functional.max_pool2d(x, 2, return_indices=True), x)
    check(lambda lib, x: lib.nn.functional.max_pool2d(x, 3, stride=1, return_indices=True), x)


AVG = [
    (2, (2, 3, 8, 8), dict(kernel_size=2)),
    (2, (2, 3, 9, 7), dict(kernel_size=3, stride=2, padding=1)),
    (2, (2, 3, 9, 7), dict(kernel_size=3, stride=2, padding=1, count_include_pad=False)),
    (2, (1, 2, 9, 9), dict(kernel_size=3, stride=2, ceil_mode=True)),
    (2, (1, 2, 9, 9), dict(kernel_size=3, stride=2, ceil_mode=True, padding=1,
                           count_include_pad=False)),
    (2, (1, 2, 6, 6), dict(kernel_size=2, divisor_override=3)),
    (1, (2, 3, 11), dict(kernel_size=4, stride=3, padding=2)),
    (3, (1, 2, 5, 6, 4), dict(kernel_size=2, stride=1)),
    (2, (1, 1, 4, 4), dict(kernel_size=(2, 2), stride=(), padding=(0,))),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("n,shape,kw", AVG)
def test_avg_pool(dtype, n, shape, kw):
    check(lambda lib, x: getattr(lib.nn.functional, f"avg_pool{n}d")(x, **kw), shape,
          dtype=dtype)


@pytest.mark.parametrize("n,shape,kw", AVG)
def test_avg_pool_integers(n, shape, kw):
    # integer means are truncated toward zero and keep the dtype
    x = np.random.default_rng(0).integers(-20, 20, shape)
    check(lambda lib, x: getattr(lib.nn.functional, f"avg_pool{n}d")(x, **kw), x, grad=False)


@pytest.mark.parametrize("shape,out", [((2, 3, 8, 8), 1), ((2, 3, 7, 9), (3, 4)),
                                       ((2, 3, 10, 10), (5, None)), ((3, 6, 6), 4)])
def test_adaptive_pools_2d(shape, out):
    check(lambda lib, x: lib.nn.functional.adaptive_avg_pool2d(x, out), shape)
    check(lambda lib, x: lib.nn.functional.adaptive_max_pool2d(x, out, return_indices=True),
          shape)


def test_adaptive_pools_1d_3d():
    check(lambda lib, x: lib.nn.functional.adaptive_avg_pool1d(x, 4), (2, 3, 10))
    check(lambda lib, x: lib.nn.functional.adaptive_max_pool1d(x, 3), (2, 3, 10))
    check(lambda lib, x: lib.nn.functional.adaptive_avg_pool3d(x, (2, 3, 1)), (1, 2, 5, 7, 4))


def test_max_unpool():
    def roundtrip(lib, x):
        y, idx = lib.nn.functional.max_pool2d(x, 2, return_indices=True)
        return lib.nn.functional.max_unpool2d(y * 2, idx, 2)
    check(roundtrip, (2, 3, 6, 8))


# max_unpool{1,2,3}d: overlapping windows (repeated indices: torch's CPU keeps the last
# write, and every input reads its gradient at its index), output_size, stride, padding.
UNPOOL = [
    (1, (2, 3, 7), dict(kernel_size=3, stride=2, padding=1)),
    (1, (3, 7), dict(kernel_size=2, output_size=(7,))),
    (2, (2, 2, 7, 6), dict(kernel_size=3, stride=1)),
    (2, (1, 2, 9, 7), dict(kernel_size=(3, 2), stride=(2, 1), padding=(1, 0),
                           output_size=(1, 2, 10, 7))),
    (2, (2, 8, 8), dict(kernel_size=2, output_size=(9, 8))),
    (3, (1, 2, 5, 6, 4), dict(kernel_size=2, stride=1)),
    (3, (2, 6, 5, 6), dict(kernel_size=3, stride=2, padding=1, output_size=(6, 5, 6))),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("n, shape, kw", UNPOOL)
def test_max_unpool_overlapping_and_sizes(n, shape, kw, dtype):
    pool_kw = {k: v for k, v in kw.items() if k != "output_size"}

    def unpool(lib, x, v):
        F = lib.nn.functional
        _, idx = getattr(F, f"max_pool{n}d")(x.detach(), return_indices=True, **pool_kw)
        return getattr(F, f"max_unpool{n}d")(v, idx, **kw)
    x = np.random.default_rng(0).standard_normal(shape).astype(dtype)
    pooled = torch.nn.functional.__dict__[f"max_pool{n}d"](torch.from_numpy(x), **pool_kw)
    check(unpool, x, tuple(pooled.shape), dtype=dtype, grad_inputs=[1])


@pytest.mark.parametrize("n", [1, 2, 3])
def test_max_unpool_repeated_indices_keep_last_write(n):
    shape = (1, 2) + (1,) * (n - 1) + (4,)
    idx = np.array([[0, 2, 2, 0], [1, 1, 3, 3]]).reshape(shape)
    check(lambda lib, v, i: getattr(lib.nn.functional, f"max_unpool{n}d")(v, i, 2),
          shape, idx, grad_inputs=[0])


@pytest.mark.parametrize("call, error, match", [
    (lambda F, x, i: F.max_unpool2d(x, i, 2, output_size=(9, 9)), ValueError,
     r'invalid output_size "\(9, 9\)" \(dim 0 must be between 2 and 6\)'),
    (lambda F, x, i: F.max_unpool2d(x, i, 2, output_size=(1, 4, 4)), ValueError,
     r"output_size should be a sequence containing 2 or 4 elements"),
    (lambda F, x, i: F.max_unpool2d(x, i.int(), 2), RuntimeError,
     r"elements in indices should be type int64 but got: Int"),
    (lambda F, x, i: F.max_unpool2d(x, i[..., :1], 2), RuntimeError,
     r"Expected shape of indices to be same as that of the input tensor \(\[1, 2, 2, 2\]\)"),
    (lambda F, x, i: F.max_unpool2d(x, i + 14, 2), RuntimeError,
     r"Found an invalid max index: 16 \(output volumes are of size 4x4"),
    (lambda F, x, i: F.max_unpool1d(x.flatten(2), i.flatten(2) - 1, 2), RuntimeError,
     r"Found an invalid max index: -1 \(output volumes are of size 8x1"),
])
def test_max_unpool_errors(call, error, match):
    check_error(lambda lib: call(lib.nn.functional, lib.ones(1, 2, 2, 2),
                                 lib.arange(8).reshape(1, 2, 2, 2) % 3), error, match)


def test_pool_double_backward():
    def second(lib, x):
        y = lib.nn.functional.max_pool2d(x, 3, stride=2, padding=1) + \
            lib.nn.functional.avg_pool2d(x, 3, stride=2, padding=1)
        (g,) = lib.autograd.grad((y ** 2).sum(), x, create_graph=True)
        return (g ** 2).sum()
    check(second, (1, 2, 7, 7), dtype="float64")


def test_pool_errors():
    check_error(lambda lib: lib.nn.functional.max_pool2d(lib.ones(1, 1, 4, 4), 2, padding=2),
                RuntimeError, r"pad should be at most half of effective kernel size")
    check_error(lambda lib: lib.nn.functional.max_pool2d(lib.ones(1, 1, 1, 1), 2),
                RuntimeError, r"Output size is too small")


@pytest.mark.parametrize("stride", [2, 1])     # windows apart and overlapping
def test_max_pool_backward_with_non_finite_gradients(stride):
    # Only each window's winner receives the gradient: NaN and inf must not leak into the
    # other positions (inf * 0 would be NaN), and the rest stays +0.
    x = np.arange(36, dtype=np.float32).reshape(1, 1, 6, 6)[..., ::-1].copy()
    grads = []
    for lib in (torch, ember):
        xt = lib.tensor(x, requires_grad=True)
        y = lib.nn.functional.max_pool2d(xt, 2, stride)
        g = np.ones(tuple(y.shape), dtype=np.float32)
        g.flat[0], g.flat[1], g.flat[2] = np.nan, np.inf, -np.inf
        y.backward(lib.tensor(g))
        grads.append(xt.grad.numpy())
    np.testing.assert_array_equal(grads[1], grads[0])
    np.testing.assert_array_equal(np.signbit(grads[1]), np.signbit(grads[0]))


DTYPES = ["float32", "float64"]
NAN = float("nan")


# ---------------------------------------------------------------- adaptive max pool 3d
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,size", [((2, 3, 6, 7, 5), (3, 2, 4)), ((3, 5, 5, 5), 2),
                                        ((1, 2, 4, 4, 4), 1), ((2, 1, 3, 4, 5), (None, 2, 5)),
                                        ((2, 2, 3, 3, 3), 5)])
def test_adaptive_max_pool3d(dtype, shape, size):
    check(lambda lib, x: lib.nn.functional.adaptive_max_pool3d(x, size, return_indices=True),
          shape, dtype=dtype)
    check(lambda lib, x: lib.nn.functional.adaptive_max_pool3d_with_indices(x, size)[0],
          shape, dtype=dtype, non_contiguous=True)


def test_adaptive_max_pool_nan_empty_and_errors():
    # A NaN beats every number, and of several NaNs the last one wins (torch's kernel).
    x = np.array([[[[[1.0, NAN], [NAN, 0.0]]]]], dtype=np.float32)
    check(lambda lib, x: lib.nn.functional.adaptive_max_pool3d(x, 1, return_indices=True), x)
    check(lambda lib, x: lib.nn.functional.adaptive_max_pool2d(x[0], 1, return_indices=True),
          x)
    check(lambda lib, x: lib.nn.functional.adaptive_max_pool3d(x, 2), (0, 2, 3, 3, 3))
    check(lambda lib, x: lib.nn.functional.adaptive_max_pool2d(x, 2), (0, 2, 3, 3))
    check_error(lambda lib: lib.nn.functional.adaptive_max_pool3d(
        lib.zeros(1, 2, 3, 3, 3, dtype=lib.int64), 2), NotImplementedError,
        "^\"adaptive_max_pool3d_cpu\" not implemented for 'Long'")


def test_adaptive_max_pool3d_double_backward():
    def second(lib, x):
        y = lib.nn.functional.adaptive_max_pool3d(x, 2)
        g, = lib.autograd.grad((y * y).sum(), x, create_graph=True)
        return g
    check(second, (1, 2, 4, 4, 4), dtype="float64")


@pytest.mark.parametrize("dtype", DTYPES)
def test_adaptive_max_pool3d_module(dtype):
    check_module(lambda lib: lib.nn.AdaptiveMaxPool3d((2, 3, 2)), (2, 3, 5, 6, 4), dtype=dtype)
    check_module(lambda lib: lib.nn.AdaptiveMaxPool3d(2, return_indices=True), (3, 4, 4, 4),
                 dtype=dtype)
    assert repr(ember.nn.AdaptiveMaxPool3d((2, None, 3))) == \
        repr(torch.nn.AdaptiveMaxPool3d((2, None, 3)))


# ---------------------------------------------------------------- LP pool 3d
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("p,kernel,stride,ceil", [(2, 2, None, False), (3.0, (1, 2, 2), 1, False),
                                                  (1.5, 2, (1, 2, 1), True), (2, 3, 2, True)])
def test_lp_pool3d(dtype, p, kernel, stride, ceil):
    check(lambda lib, x: lib.nn.functional.lp_pool3d(x.abs() + 0.1, p, kernel, stride, ceil),
          (2, 3, 5, 5, 6), dtype=dtype)


@pytest.mark.parametrize("norm", [math.inf, -math.inf])
@pytest.mark.parametrize("n", [1, 2, 3])
def test_lp_pool_infinite_norm(norm, n):
    shape = (2, 3) + (6,) * n
    check(lambda lib, x: getattr(lib.nn.functional, f"lp_pool{n}d")(x, norm, 2), shape)
    check(lambda lib, x: getattr(lib.nn.functional, f"lp_pool{n}d")(x, norm, 3, 2, True),
          shape)


def test_lp_pool3d_unbatched_and_non_contiguous():
    check(lambda lib, x: lib.nn.functional.lp_pool3d(x, 2, 2), (3, 4, 4, 4))
    check(lambda lib, x: lib.nn.functional.lp_pool3d(x.transpose(2, 4), 2, 2), (1, 2, 4, 6, 4))


@pytest.mark.parametrize("dtype", DTYPES)
def test_lp_pool3d_module(dtype):
    check_module(lambda lib: lib.nn.LPPool3d(2, 2), (2, 3, 4, 4, 4), dtype=dtype)
    check_module(lambda lib: lib.nn.LPPool3d(1.5, (1, 2, 2), stride=1, ceil_mode=True),
                 (2, 3, 4, 5, 4), dtype=dtype, call=lambda m, x: m(x.abs()))


# ---------------------------------------------------------------- fractional max pool
def _samples(shape, dtype="float32", seed=3):
    return np.random.default_rng(seed).random(shape).astype(dtype)


def _frac(n, lib, x, u, **kwargs):
    pool = getattr(lib.nn.functional, f"fractional_max_pool{n}d")
    return pool(x, _random_samples=u, **kwargs)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("kwargs", [
    {"kernel_size": 2, "output_size": 4}, {"kernel_size": (2, 3), "output_size": (5, 3)},
    {"kernel_size": 3, "output_size": (3, 4), "return_indices": True},
    {"kernel_size": 2, "output_ratio": (0.5, 0.7)}, {"kernel_size": 1, "output_size": (9, 8)},
    {"kernel_size": 2, "output_size": 1, "return_indices": True},
])
def test_fractional_max_pool2d(dtype, kwargs):
    u = _samples((2, 3, 2), dtype)
    check(lambda lib, x, u: _frac(2, lib, x, u, **kwargs), (2, 3, 9, 8), u, dtype=dtype,
          grad_inputs=[0])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("kwargs", [
    {"kernel_size": 2, "output_size": 3}, {"kernel_size": (1, 2, 3), "output_size": (4, 3, 2)},
    {"kernel_size": 2, "output_ratio": 0.6, "return_indices": True},
    {"kernel_size": 2, "output_ratio": (0.5, 0.7, 0.4)},
])
def test_fractional_max_pool3d(dtype, kwargs):
    u = _samples((2, 3, 3), dtype)
    check(lambda lib, x, u: _frac(3, lib, x, u, **kwargs), (2, 3, 7, 6, 5), u, dtype=dtype,
          grad_inputs=[0])


def test_fractional_with_indices_forms_and_unbatched():
    u2, u3 = _samples((1, 3, 2)), _samples((1, 3, 3))
    check(lambda lib, x, u: lib.nn.functional.fractional_max_pool2d_with_indices(
        x, 2, (3, 4), _random_samples=u), (3, 8, 9), u2, grad_inputs=[0])
    check(lambda lib, x, u: lib.nn.functional.fractional_max_pool3d_with_indices(
        x, 2, 3, _random_samples=u), (3, 5, 6, 5), u3, grad_inputs=[0])
    # More samples than the batch: the first ones are used.
    check(lambda lib, x, u: _frac(2, lib, x, u, kernel_size=2, output_size=3), (2, 3, 6, 6),
          _samples((4, 3, 2)), grad_inputs=[0])


def test_fractional_non_contiguous_nan_and_overlap():
    u = _samples((2, 4, 2))
    check(lambda lib, x, u: _frac(2, lib, x, u, kernel_size=3, output_size=5), (2, 4, 7, 7), u,
          non_contiguous=True, grad_inputs=[0])
    x = np.array([[[[1.0, NAN], [NAN, 0.0]]]], dtype=np.float32)   # the last NaN wins
    check(lambda lib, x, u: _frac(2, lib, x, u, kernel_size=2, output_size=1,
                                  return_indices=True), x, _samples((1, 1, 2)), grad=False)


def test_fractional_output_ratio_number_2d():
    # torch 2.13's F.fractional_max_pool2d calls len() on a plain-number output_ratio (a
    # TypeError, though its docs allow a number); ember takes it as (r, r), as the module does.
    u = _samples((1, 2, 2))
    y = ember.nn.functional.fractional_max_pool2d(ember.randn(1, 2, 8, 6), 2, output_ratio=0.5,
                                                  _random_samples=ember.tensor(u))
    assert tuple(y.shape) == (1, 2, 4, 3)
    check(lambda lib, x, u: _frac(2, lib, x, u, kernel_size=2, output_ratio=(0.5, 0.5)),
          (1, 2, 8, 6), u, grad_inputs=[0])


def test_fractional_double_backward():
    u = _samples((1, 2, 2), "float64")

    def second(lib, x, u):
        y = _frac(2, lib, x, u, kernel_size=2, output_size=3)
        g, = lib.autograd.grad((y * y).sum(), x, create_graph=True)
        return g
    check(second, (1, 2, 6, 6), u, dtype="float64", grad_inputs=[0])


def test_fractional_grad_fn_names_and_empty_batch():
    x = ember.randn(1, 2, 6, 6, requires_grad=True)
    assert ember.nn.functional.fractional_max_pool2d(x, 2, 3).grad_fn.name() == \
        "FractionalMaxPool2DBackward0"
    x3 = ember.randn(1, 2, 6, 6, 6, requires_grad=True)
    assert ember.nn.functional.fractional_max_pool3d(x3, 2, 3).grad_fn.name() == \
        "FractionalMaxPool3DBackward0"
    check(lambda lib, x: lib.nn.functional.fractional_max_pool2d(x, 2, 3), (0, 2, 6, 6))
    check(lambda lib, x, u: _frac(2, lib, x, u, kernel_size=2, output_size=(0, 2)),
          (1, 2, 6, 6), _samples((1, 2, 2)), grad_inputs=[0])


def test_fractional_random_samples_default():
    # Without _random_samples each call draws new starts: outputs are maxima of 2x2 windows.
    x = ember.arange(400.0).reshape(1, 4, 10, 10)
    y, idx = ember.nn.functional.fractional_max_pool2d(x, 2, output_size=4, return_indices=True)
    assert tuple(y.shape) == (1, 4, 4, 4)
    assert ember.equal(y, x.flatten(2).gather(2, idx.flatten(2)).reshape(1, 4, 4, 4))
    rows, cols = idx % 100 // 10, idx % 10
    assert bool((rows[..., -1, :] == 9).all()) and bool((cols[..., -1] == 9).all())
    assert bool((rows.diff(dim=2) >= 2).all()) and bool((cols.diff(dim=3) >= 2).all())
    draws = {tuple(ember.nn.functional.fractional_max_pool2d(
        x, 2, output_size=4, return_indices=True)[1].flatten().tolist()) for _ in range(10)}
    assert len(draws) > 1


def _frac_error(n, input_shape, samples_shape=None, samples_dtype="float32", **kwargs):
    def fn(lib):
        x = lib.randn(*input_shape)
        u = None if samples_shape is None else lib.rand(*samples_shape,
                                                        dtype=getattr(lib, samples_dtype))
        pool = getattr(lib.nn.functional, f"fractional_max_pool{n}d")
        return pool(x, _random_samples=u, **kwargs)
    return fn


@pytest.mark.parametrize("n,shape,samples,kwargs,error,match", [
    (2, (1, 1, 5, 5), None, {"kernel_size": 3, "output_size": 4}, RuntimeError,
     r"^fractional_max_pool2d\(\): pool height 3 too large relative to input height 5"),
    (2, (1, 1, 5, 5), None, {"kernel_size": 2, "output_size": (4, 5)}, RuntimeError,
     r"^fractional_max_pool2d\(\): pool width 2 too large relative to input width 5"),
    (3, (1, 1, 5, 5, 5), None, {"kernel_size": 4, "output_size": 3}, RuntimeError,
     r"^fractional_max_pool3d_out\(\): pool time 4 too large relative to input time 5"),
    (2, (1, 1, 5, 5), None, {"kernel_size": 2}, ValueError,
     "^fractional_max_pool2d requires specifying either an output_size or an output_ratio"),
    (3, (1, 1, 5, 5, 5), None, {"kernel_size": 2}, ValueError,
     "^fractional_max_pool3d requires specifying either an output_size or an output_ratio"),
    (2, (1, 1, 5, 5), None, {"kernel_size": 2, "output_ratio": (0.5, 0.5, 0.5)}, ValueError,
     "^fractional_max_pool2d requires output_ratio to either be a single Int or tuple"),
    (2, (5, 5), None, {"kernel_size": 2, "output_size": 2}, IndexError,
     r"^Dimension out of range \(expected to be in range of \[-2, 1\], but got -3\)"),
    (2, (5, 5), (1, 1, 2), {"kernel_size": 2, "output_size": 2}, RuntimeError,
     r"^fractional_max_pool2d\(\): Expected 3D or 4D tensor, but got: \[5, 5\]"),
    (3, (5, 5), (1, 1, 3), {"kernel_size": 2, "output_size": 2}, RuntimeError,
     r"^fractional_max_pool3d_out\(\): Expected 4D or 5D tensor, but got: \[5, 5\]"),
    (2, (2, 0, 5, 5), None, {"kernel_size": 2, "output_size": 2}, RuntimeError,
     r"^fractional_max_pool2d\(\): Expected input to have non-zero size for non-batch "
     r"dimensions, but got\[2, 0, 5, 5\] with dimension 1 being empty."),
    (2, (2, 1, 5, 5), (1, 1, 2), {"kernel_size": 2, "output_size": 2}, RuntimeError,
     r"^Expect _random_samples.size\(0\) no less then input batch size."),
    (2, (2, 3, 5, 5), (2, 1, 2), {"kernel_size": 2, "output_size": 2}, RuntimeError,
     r"^Expect _random_samples.size\(1\) equals to input channel size."),
    (2, (2, 1, 5, 5), (2, 1, 3), {"kernel_size": 2, "output_size": 2}, RuntimeError,
     r"^Expect _random_samples.size\(2\) equals to 2; got 3."),
    (3, (2, 1, 5, 5, 5), (2, 1, 2), {"kernel_size": 2, "output_size": 2}, RuntimeError,
     r"^Expect _random_samples.size\(2\) equals to 3; got 2."),
    (2, (1, 1, 3, 3), (1, 1, 2, 1), {"kernel_size": 2, "output_size": 2}, RuntimeError,
     "^Expect _random_samples to have 3 dimensions, got 4"),
])
def test_fractional_errors(n, shape, samples, kwargs, error, match):
    check_error(_frac_error(n, shape, samples, **kwargs), error, match)


def test_fractional_dtype_errors():
    check_error(_frac_error(2, (2, 1, 5, 5), (2, 1, 2), "float64", kernel_size=2,
                            output_size=2), RuntimeError,
                "^Expect _random_samples to have the same dtype as input")

    def integer_input(lib, samples):
        x = lib.ones(1, 1, 4, 4, dtype=lib.int64)
        u = None if samples is None else lib.zeros(1, 1, 2, dtype=lib.int64)
        return lib.nn.functional.fractional_max_pool2d(x, 2, 2, _random_samples=u)
    check_error(lambda lib: integer_input(lib, None), NotImplementedError,
                "^\"check_uniform_bounds\" not implemented for 'Long'")
    check_error(lambda lib: integer_input(lib, True), NotImplementedError,
                "^\"fractional_max_pool2d_out_frame\" not implemented for 'Long'")


def test_fractional_kernel_size_zero():
    # torch's functional form reads outside the input for kernel_size 0 (its 3-d module
    # refuses it); ember refuses it in the functional form too.
    with pytest.raises(ValueError, match="^kernel_size must be greater than 0, but got 0"):
        ember.nn.functional.fractional_max_pool2d(ember.randn(1, 1, 3, 3), 0, 2)
    check_error(lambda lib: lib.nn.FractionalMaxPool3d(0, output_size=2), ValueError,
                "^kernel_size must be greater than 0, but got 0")


# ---------------------------------------------------------------- fractional modules
@pytest.mark.parametrize("dtype", DTYPES)
def test_fractional_modules_with_samples(dtype):
    u2, u3 = _samples((2, 3, 2), dtype), _samples((2, 3, 3), dtype)

    def module(n, u, **kwargs):
        def make(lib):
            cls = getattr(lib.nn, f"FractionalMaxPool{n}d")
            return cls(_random_samples=lib.tensor(u), **kwargs)
        return make
    check_module(module(2, u2, kernel_size=2, output_size=(4, 3)), (2, 3, 8, 7), dtype=dtype)
    check_module(module(2, u2, kernel_size=3, output_ratio=0.5, return_indices=True),
                 (2, 3, 9, 8), dtype=dtype)
    check_module(module(3, u3, kernel_size=(2, 1, 2), output_ratio=(0.5, 0.6, 0.7)),
                 (2, 3, 6, 5, 7), dtype=dtype)
    check_module(module(3, u3, kernel_size=2, output_size=2, return_indices=True),
                 (2, 3, 4, 4, 4), dtype=dtype)


def test_fractional_module_state_repr_and_errors():
    for n in (2, 3):
        name = f"FractionalMaxPool{n}d"
        e, t = getattr(ember.nn, name)(2, output_size=3), getattr(torch.nn, name)(2, 3)
        assert repr(e) == repr(t) == f"{name}()"
        assert e.state_dict() == {} and e.kernel_size == t.kernel_size == (2,) * n
        assert e.output_size == t.output_size and e.output_ratio is None
        y = e(ember.randn(2, 3, *(8,) * n))
        assert tuple(y.shape) == (2, 3) + (3,) * n
        check_error(lambda lib: getattr(lib.nn, name)(2), ValueError,
                    f"^{name} requires specifying either an output size, or a pooling ratio")
        check_error(lambda lib: getattr(lib.nn, name)(2, output_size=2, output_ratio=0.5),
                    ValueError, "^only one of output_size and output_ratio may be specified")
        check_error(lambda lib: getattr(lib.nn, name)(2, output_ratio=1.2), ValueError,
                    r"^output_ratio must be between 0 and 1 \(got 1.2\)")
    m = ember.nn.FractionalMaxPool2d(2, output_ratio=0.5, _random_samples=ember.rand(1, 1, 2))
    assert list(m.state_dict()) == ["_random_samples"] and m.output_ratio == (0.5, 0.5)


@pytest.mark.parametrize("n", [1, 2])
def test_adaptive_max_pool_integer_input(n):
    check_error(lambda lib: getattr(lib.nn.functional, f"adaptive_max_pool{n}d")(
        lib.zeros((1, 2) + (3,) * n, dtype=lib.int64), 2), NotImplementedError,
        "^\"adaptive_max_pool2d\" not implemented for 'Long'")
