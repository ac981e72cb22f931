"""The `pooling` kernel family (ember/_cpu/pooling.py and its numba twin) through the
F.*pool* functions in both kernel modes: values, indices and gradients against torch in
float32 and float64, with odd shapes, padding, dilation, ceil_mode, non-contiguous and
channels-last input, NaN; dtypes numba does not compile; and the two implementations
against each other. (tests/nn/test_functional_pooling.py covers the rest of pooling.)"""
import numpy as np
import pytest
import torch

import ember
from ember._cpu import pooling as reference
from ember.nn.functional.pooling import _pool_geometry
from oracle import check

MAX = [
    (2, (3, 5, 11, 9), dict(kernel_size=2)),                               # MNIST's
    (2, (2, 4, 9, 7), dict(kernel_size=3, stride=2, padding=1)),           # ResNet stem's
    (2, (2, 3, 9, 9), dict(kernel_size=3, stride=2, ceil_mode=True, padding=1)),
    (2, (1, 2, 10, 9), dict(kernel_size=(3, 2), stride=(2, 1), dilation=2, padding=1)),
    (2, (3, 7, 7), dict(kernel_size=3, stride=1, padding=1)),              # unbatched
    (1, (2, 3, 13), dict(kernel_size=4, stride=3, padding=2, ceil_mode=True, dilation=2)),
    (3, (1, 2, 5, 7, 4), dict(kernel_size=3, stride=(1, 2, 2), padding=1)),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("n,shape,kw", MAX)
def test_max_pool_values_indices_and_gradients(kernels, dtype, n, shape, kw):
    pool = f"max_pool{n}d"
    check(lambda lib, x: getattr(lib.nn.functional, pool)(x, **kw, return_indices=True),
          shape, dtype=dtype)


@pytest.mark.parametrize("n,shape,kw", MAX[:4])
def test_max_pool_non_contiguous(kernels, n, shape, kw):
    pool = f"max_pool{n}d"
    check(lambda lib, x: getattr(lib.nn.functional, pool)(x, **kw), shape, non_contiguous=True)


AVG = [
    (2, (3, 5, 11, 9), dict(kernel_size=2)),
    (2, (2, 4, 9, 7), dict(kernel_size=3, stride=2, padding=1, count_include_pad=False)),
    (2, (2, 3, 9, 9), dict(kernel_size=3, stride=2, ceil_mode=True, padding=1)),
    (1, (2, 3, 13), dict(kernel_size=4, stride=3, padding=2)),
    (3, (1, 2, 5, 7, 4), dict(kernel_size=2, stride=1, divisor_override=3)),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("n,shape,kw", AVG)
def test_avg_pool_values_and_gradients(kernels, dtype, n, shape, kw):
    pool = f"avg_pool{n}d"
    check(lambda lib, x: getattr(lib.nn.functional, pool)(x, **kw), shape, dtype=dtype,
          non_contiguous=True)


@pytest.mark.parametrize("pool", ["max_pool2d", "avg_pool2d"])
def test_channels_last_input_keeps_its_layout(kernels, pool):
    def run(lib, x):
        y = getattr(lib.nn.functional, pool)(x.contiguous(memory_format=lib.channels_last),
                                             3, 2, 1)
        assert y.is_contiguous(memory_format=lib.channels_last)
        return y
    check(run, (2, 5, 9, 8))


def test_nan_wins_and_the_last_nan_takes_the_gradient(kernels):
    x = np.array([[[[1.0, np.nan, np.nan, 2.0], [np.nan, 5.0, 0.0, 1.0]]]], np.float32)
    check(lambda lib, x: lib.nn.functional.max_pool2d(x, (1, 4), return_indices=True), x)
    check(lambda lib, x: lib.nn.functional.max_pool2d(x, 2, 1, return_indices=True), x)


def test_adaptive_average_to_one_is_a_mean(kernels):
    check(lambda lib, x: lib.nn.functional.adaptive_avg_pool2d(x, 1), (4, 6, 5, 3))
    check(lambda lib, x: lib.nn.functional.adaptive_avg_pool2d(
        x.contiguous(memory_format=lib.channels_last), 1), (4, 6, 5, 3))


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_dtypes_numba_does_not_compile_fall_back(kernels, dtype):
    check(lambda lib, x: lib.nn.functional.max_pool2d(x, 3, 2, 1), (2, 3, 9, 7), dtype=dtype)


def test_empty_batch(kernels):
    for lib in (torch, ember):
        x = lib.zeros(0, 3, 8, 8, requires_grad=True)
        lib.nn.functional.max_pool2d(x, 2).sum().backward()
        assert tuple(x.grad.shape) == (0, 3, 8, 8)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("n,shape,kw", MAX)
def test_numba_twin_agrees_with_the_reference(dtype, n, shape, kw):
    if not ember._cpu.kernels.numba_available():
        pytest.skip("numba is not installed")
    from ember._cpu.numba import pooling as compiled
    kernel = (kw["kernel_size"],) * n if isinstance(kw["kernel_size"], int) \
        else kw["kernel_size"]
    per_dim = [kw.get(key, default) for key, default in
               (("stride", kernel), ("padding", 0), ("dilation", 1))]
    stride, padding, dilation = [v if isinstance(v, tuple) else (v,) * n for v in per_dim]
    full = shape if len(shape) == n + 2 else (1,) + shape
    pads, out = _pool_geometry(full[2:], kernel, stride, padding, dilation,
                               kw.get("ceil_mode", False))
    x = np.random.default_rng(0).standard_normal(full).astype(dtype)
    x.flat[::7] = x.flat[3]                              # ties: the first offset wins
    x.flat[5::11] = np.nan                               # NaN: the last one wins
    arg, values = reference.max_pool(x, kernel, stride, dilation, pads, out)
    compiled_arg, compiled_values = compiled.max_pool(x, kernel, stride, dilation, pads, out)
    assert compiled_arg.dtype == arg.dtype and compiled_values.dtype == values.dtype
    np.testing.assert_array_equal(compiled_arg, arg)
    np.testing.assert_array_equal(compiled_values, values)
    x = np.nan_to_num(x)
    arg, values = reference.max_pool(x, kernel, stride, dilation, pads, out)
    g = np.random.default_rng(1).standard_normal(values.shape).astype(dtype)
    for grad in (g, g.transpose(1, 0, *range(2, g.ndim)).copy().transpose(
            1, 0, *range(2, g.ndim))):                 # and a non-contiguous gradient
        # Overlapping windows add into an input element in another order: last-bit
        # differences only.
        np.testing.assert_allclose(
            compiled.max_pool_backward(grad, arg, kernel, stride, dilation, pads, full),
            reference.max_pool_backward(grad, arg, kernel, stride, dilation, pads, full),
            rtol=1e-6, atol=1e-6)
