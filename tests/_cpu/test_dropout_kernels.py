"""The `dropout` kernel family (ember/_cpu/dropout.py and its numba twin) through
F.dropout in both kernel modes: one mask for forward and backward, its fraction and
scale, the same masks for a seed whichever kernels run, torch's NaN, -0 and node name, and
the two implementations against each other. (tests/nn/test_dropout.py covers the feature
dropouts.)"""
import numpy as np
import pytest
import torch

import ember
from ember._cpu import dropout as reference

R = np.random.default_rng(2)


def _dropout(x, p=0.3, **kwargs):
    return ember.nn.functional.dropout(x, p, training=True, **kwargs)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(7, 33), (3, 300, 130), ()])
def test_backward_applies_the_forward_mask(kernels, dtype, shape):
    x = ember.ones(shape, dtype=getattr(ember, dtype), requires_grad=True)
    ember.manual_seed(1)
    y = _dropout(x)
    g = ember.tensor(R.standard_normal(shape).astype(dtype))
    y.backward(g)
    mask = y.detach().numpy()
    np.testing.assert_array_equal(x.grad.numpy(), g.numpy() * mask)
    if mask.size > 1000:
        kept = mask != 0
        assert abs(kept.mean() - 0.7) < 0.01
        np.testing.assert_array_equal(mask[kept], np.asarray(1 / 0.7, dtype))


def test_a_seed_gives_the_same_masks_in_both_kernel_modes():
    if not ember._cpu.kernels.numba_available():
        pytest.skip("numba is not installed")
    x = ember.tensor(R.standard_normal((64, 257)).astype(np.float32))
    outs = []
    for mode in ("numpy", "numba"):
        with ember.backends.cpu.flags(kernels=mode):
            ember.manual_seed(5)
            outs.append(_dropout(x, 0.4).numpy())
    np.testing.assert_array_equal(outs[0], outs[1])


def test_nan_negative_zero_and_p_one_like_torch(kernels):
    x = np.array([np.nan, -1.0, 2.0] * 100, np.float32)
    for lib in (torch, ember):
        everything = lib.nn.functional.dropout(lib.tensor(x), p=1.0).numpy()
        np.testing.assert_array_equal(everything, np.where(np.isnan(x), np.nan, 0.0))
        assert np.signbit(everything[1::3]).all()
        some = lib.nn.functional.dropout(lib.tensor(x), p=0.5).numpy()
        assert np.isnan(some[::3]).all() and set(np.unique(some[1::3])) <= {-2.0, 0.0}


def test_node_name_inplace_and_double_backward(kernels):
    names = [type(lib.nn.functional.dropout(lib.randn(5, 4, requires_grad=True), 0.5).grad_fn)
             .__name__ for lib in (torch, ember)]
    assert names[0] == names[1]
    x = ember.randn(6, 5)
    assert _dropout(x, inplace=True) is x and (x.numpy() == 0).any()
    # create_graph: the gradient is itself differentiable (dropout is linear: zero second
    # derivative, the first is the mask)
    w = ember.randn(6, 5, requires_grad=True)
    ember.manual_seed(2)
    y = _dropout(w * w)
    (first,) = ember.autograd.grad(y.sum(), w, create_graph=True)
    ember.manual_seed(2)
    mask = _dropout(ember.ones(6, 5)).numpy()
    np.testing.assert_allclose(first.detach().numpy(), 2 * w.detach().numpy() * mask,
                               rtol=1e-6)
    (second,) = ember.autograd.grad(first.sum(), w)
    np.testing.assert_allclose(second.numpy(), 2 * mask, rtol=1e-6)


def test_non_contiguous_and_16_bit_inputs(kernels):
    for x in (ember.ones(40, 30).t(), ember.ones(40, 30, dtype=ember.float16),
              ember.ones(40, 30, dtype=ember.bfloat16)):
        x.requires_grad_(True)
        y = _dropout(x, 0.5)
        y.sum().backward()
        assert y.dtype == x.dtype and y.shape == x.shape
        np.testing.assert_array_equal(x.grad.float().numpy(), y.detach().float().numpy())
        assert set(np.unique(y.detach().float().numpy())) == {0.0, 2.0}


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("size", [1, 1000, 70000])
def test_numba_kernel_agrees_with_the_reference(dtype, size):
    compiled = pytest.importorskip("ember._cpu.numba.dropout")
    x = R.standard_normal(size).astype(dtype)
    x[:3] = [np.nan, -1.0, np.inf][:size]
    draws = R.random(size).astype(dtype)
    for p in (0.0, 0.25, 1.0):
        mine, theirs = compiled.dropout(x, draws, p), reference.dropout(x, draws, p)
        np.testing.assert_array_equal(mine, theirs)
        np.testing.assert_array_equal(np.signbit(mine), np.signbit(theirs))


def test_numba_kernel_falls_back_to_the_reference():
    compiled = pytest.importorskip("ember._cpu.numba.dropout")
    draws = R.random((5, 8)).astype(np.float32)
    for x in (R.standard_normal((5, 8)).astype(np.float16),       # not compiled
              R.standard_normal((8, 5)).astype(np.float32).T):      # not contiguous
        np.testing.assert_array_equal(compiled.dropout(x, draws, 0.5),
                                      reference.dropout(x, draws, 0.5))
