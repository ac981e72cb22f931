"""The `embedding` kernel family (ember/_cpu/embedding.py and its numba twin): the
gradient of F.embedding in both kernel modes against torch, with repeated indices,
padding_idx, scale_grad_by_freq, float32 and float64, int32 indices, odd and empty shapes,
a non-contiguous gradient; dtypes numba does not compile; and the two implementations
against each other. (tests/nn covers embedding's lookups, max_norm and embedding_bag.)"""
import numpy as np
import pytest
import torch

import ember
from ember._cpu import embedding as reference
from oracle import check

R = np.random.default_rng(3)
INDICES = R.integers(0, 7, (5, 9))          # every row of a 7-row table, most repeated


def _embedding(indices, **kw):
    def run(lib, weight):
        return lib.nn.functional.embedding(lib.tensor(indices), weight, **kw)
    return run


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("kw", [{}, dict(padding_idx=2), dict(scale_grad_by_freq=True),
                                dict(padding_idx=-1, scale_grad_by_freq=True)])
def test_gradient_against_torch(kernels, dtype, kw):
    # torch's double backward leaves out the frequency scaling; ember's follows it
    check(_embedding(INDICES, **kw), (7, 5), dtype=dtype)


@pytest.mark.parametrize("indices", [INDICES.astype(np.int32), INDICES[:, ::2],
                                     np.array(4), np.zeros((0, 3), np.int64)])
def test_index_shapes_and_dtypes(kernels, indices):
    check(_embedding(indices, padding_idx=0), (7, 3))


def test_non_contiguous_gradient(kernels):
    def run(lib, weight):
        return lib.nn.functional.embedding(lib.tensor(INDICES), weight).transpose(0, 1)
    check(run, (7, 6))


def test_module_passes_scale_grad_by_freq_and_bags_refuse_it(kernels):
    with pytest.raises(NotImplementedError, match="scale_grad_by_freq"):
        ember.nn.functional.embedding_bag(ember.tensor(INDICES), ember.randn(7, 4),
                                          scale_grad_by_freq=True)
    for lib in (torch, ember):
        lib.manual_seed(0)
    layers = [lib.nn.Embedding(7, 4, scale_grad_by_freq=True) for lib in (torch, ember)]
    layers[1].weight.data = ember.tensor(layers[0].weight.detach().numpy())
    for lib, layer in zip((torch, ember), layers):
        layer(lib.tensor(INDICES)).sum().backward()
    np.testing.assert_allclose(layers[1].weight.grad.numpy(), layers[0].weight.grad.numpy(),
                               rtol=1e-6)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_dtypes_numba_does_not_compile_fall_back(kernels, dtype):
    check(_embedding(INDICES, padding_idx=1, scale_grad_by_freq=True), (7, 3), dtype=dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("padding_idx,scale", [(-1, False), (3, False), (-1, True), (0, True)])
def test_numba_twin_equals_the_reference(dtype, padding_idx, scale):
    if not ember._cpu.kernels.numba_available():
        pytest.skip("numba is not installed")
    from ember._cpu.numba import embedding as compiled
    indices = R.integers(0, 50, (40, 33))
    grad = R.standard_normal((40, 33, 300)).astype(dtype)     # large enough to split
    np.testing.assert_array_equal(
        compiled.embedding_backward(grad, indices, 50, padding_idx, scale),
        reference.embedding_backward(grad, indices, 50, padding_idx, scale))
