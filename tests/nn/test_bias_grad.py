"""The BLAS bias-gradient sum against torch's sum of the same gradient."""
import numpy as np
import pytest
import torch

import ember

from ember.nn.functional._bias_grad import bias_grad


def _torch_sum(g: np.ndarray, axis: int) -> np.ndarray:
    dims = tuple(a for a in range(g.ndim) if a != axis)
    return torch.from_numpy(g).sum(dims).numpy()


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "float16"])
@pytest.mark.parametrize("shape, axis", [((700, 100), 1), ((8, 5, 6, 7), 1), ((3, 4), 1),
                                         ((0, 4), 1), ((2, 3, 0), 1), ((4, 3, 2, 2, 2), 1),
                                         ((6, 5), 0), ((2, 3, 4), 2)])
def test_bias_grad_matches_torch(shape, axis, dtype):
    g = np.random.default_rng(0).standard_normal(shape).astype(dtype)
    got, want = bias_grad(g, axis), _torch_sum(g, axis)
    assert got.dtype == want.dtype and got.shape == want.shape
    tol = 1e-2 if dtype == "float16" else 1e-5
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol)


def test_bias_grad_of_bfloat16_adds_in_float32():
    g = torch.randn(700, 10, generator=torch.Generator().manual_seed(0)).bfloat16()
    got = bias_grad(g.view(torch.int16).numpy().view(ember.bfloat16.numpy), 1)
    want = g.sum(0).float().numpy()
    np.testing.assert_allclose(got.astype("float32"), want, rtol=1e-2, atol=1e-2)


def test_bias_grad_of_a_non_contiguous_gradient():
    g = np.random.default_rng(1).standard_normal((6, 4, 10)).astype("float32")[:, :, ::2]
    np.testing.assert_allclose(bias_grad(g, 1), _torch_sum(np.ascontiguousarray(g), 1),
                               rtol=1e-5, atol=1e-5)
