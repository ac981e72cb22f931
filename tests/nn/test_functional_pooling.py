"""F.*pool* against torch: values, indices, gradients (incl. overlapping windows, ties)."""
import numpy as np
import pytest
import torch

import ember
import ember.nn.functional  # noqa: F401
from oracle import check, check_error

MAX = [
    (2, (2, 3, 8, 8), dict(kernel_size=2)),
    (2, (2, 3, 9, 7), dict(kernel_size=3, stride=2, padding=1)),
    (2, (1, 2, 9, 9), dict(kernel_size=3, stride=2, ceil_mode=True)),
    (2, (1, 2, 10, 9), dict(kernel_size=(3, 2), stride=(2, 1), dilation=2)),
    (2, (3, 7, 7), dict(kernel_size=2)),
    (1, (2, 3, 11), dict(kernel_size=3, stride=2, padding=1, ceil_mode=True)),
    (3, (1, 2, 5, 6, 4), dict(kernel_size=2, stride=(1, 2, 2))),
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
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("n,shape,kw", AVG)
def test_avg_pool(dtype, n, shape, kw):
    check(lambda lib, x: getattr(lib.nn.functional, f"avg_pool{n}d")(x, **kw), shape,
          dtype=dtype)


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
