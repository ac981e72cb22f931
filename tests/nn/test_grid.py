"""F.affine_grid and F.grid_sample (ember/nn/functional/grid.py) against torch."""
import re
import warnings

import numpy as np
import pytest
import torch

import ember
import ember.nn.functional  # noqa: F401
from oracle import check, check_error


def _theta(n, dims=2, seed=0):
    r = np.random.default_rng(seed)
    return np.eye(dims, dims + 1)[None] + 0.3 * r.standard_normal((n, dims, dims + 1))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("align_corners", [False, True])
@pytest.mark.parametrize("size", [(2, 3, 4, 7), (2, 1, 1, 5), (2, 2, 3, 4, 5)])
def test_affine_grid(dtype, align_corners, size):
    theta = _theta(size[0], len(size) - 2).astype(dtype)
    check(lambda lib, t: lib.nn.functional.affine_grid(t, size, align_corners=align_corners),
          theta, dtype=dtype)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("mode, size", [("bilinear", (2, 3, 5, 6)), ("nearest", (2, 3, 5, 6)),
                                        ("bicubic", (2, 3, 5, 6)), ("bicubic", (1, 2, 1, 3)),
                                        ("bilinear", (2, 3, 4, 5, 6)),
                                        ("nearest", (2, 3, 4, 5, 6)),
                                        ("bilinear", (1, 2, 1, 3, 2))])
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align_corners", [False, True])
def test_grid_sample(dtype, mode, size, padding_mode, align_corners):
    # points inside, on and beyond the edges (scaled past +-1), in 2-D and 3-D
    out = (size[0], 4, 7) if len(size) == 4 else (size[0], 3, 4, 5)
    grid = 1.4 * np.random.default_rng(1).uniform(-1, 1, out + (len(size) - 2,))

    def sample(lib, x, g):
        return lib.nn.functional.grid_sample(x, g, mode=mode, padding_mode=padding_mode,
                                             align_corners=align_corners)
    check(sample, size, grid.astype(dtype), dtype=dtype)


def test_spatial_transformer_gradients_reach_theta():
    def transform(lib, x, theta):
        grid = lib.nn.functional.affine_grid(theta, (2, 3, 6, 6), align_corners=False)
        return lib.nn.functional.grid_sample(x, grid, align_corners=False)
    check(transform, (2, 3, 8, 8), _theta(2), dtype="float64")


# float32 only: torch's 2-D CPU kernel unnormalizes float64 with a fused multiply-add,
# which NumPy cannot round alike (one ulp below a pixel centre changes the floor)
@pytest.mark.parametrize("dtype", ["float32"])
@pytest.mark.parametrize("align_corners", [False, True])
def test_identity_grid_is_torch_to_the_bit(dtype, align_corners):
    # the spatial transformer tutorial starts from the identity map: its points sit on pixel
    # centres, where grid_sample's gradient depends on the floor of each coordinate, so a
    # one-ulp difference in the grid changed the gradient reaching theta
    def grid(lib):
        theta = lib.tensor([[[1.0, 0, 0], [0, 1, 0]]] * 2, dtype=getattr(lib, dtype))
        return lib.nn.functional.affine_grid(theta, (2, 1, 28, 13), align_corners=align_corners)
    assert np.array_equal(grid(ember).numpy(), grid(torch).numpy())

    def grid_gradient(lib, x):
        g = grid(lib).requires_grad_()
        out = lib.nn.functional.grid_sample(x, g, align_corners=align_corners)
        return lib.autograd.grad((out * out.detach().sin()).sum(), g)[0]
    check(grid_gradient, (2, 1, 28, 13), dtype=dtype, grad=False)


def test_names_warnings_and_errors():
    x, theta = ember.randn(2, 3, 5, 6, requires_grad=True), ember.tensor(_theta(2))
    theta.requires_grad_()
    grid = ember.nn.functional.affine_grid(theta, (2, 3, 4, 4), align_corners=False)
    assert grid.grad_fn.name() == "AffineGridGeneratorBackward0"
    out = ember.nn.functional.grid_sample(x, grid.float(), align_corners=False)
    assert out.grad_fn.name() == "GridSampler2DBackward0"
    for lib in (torch, ember):
        with pytest.warns(UserWarning, match="^Default grid_sample and affine_grid behavior "
                                             "has changed to align_corners=False since 1.3.0"):
            lib.nn.functional.affine_grid(lib.zeros(1, 2, 3), (1, 1, 2, 2))
    F = re.escape("nn.functional.grid_sample(): expected ")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_error(lambda lib: lib.nn.functional.grid_sample(
            lib.ones(1, 1, 2, 2), lib.zeros(1, 2, 2, 2), mode="foo"), ValueError,
            F + re.escape("mode to be 'bilinear', 'nearest' or 'bicubic', but got: 'foo'"))
        check_error(lambda lib: lib.nn.functional.grid_sample(
            lib.ones(1, 1, 2, 2), lib.zeros(1, 2, 2, 2), padding_mode="foo"), ValueError,
            F + re.escape("padding_mode to be 'zeros', 'border', or 'reflection', but got: "
                          "'foo'"))
        check_error(lambda lib: lib.nn.functional.grid_sample(
            lib.ones(2, 1, 2, 2), lib.zeros(2, 2, 2, 3)), RuntimeError,
            r"grid_sampler\(\): expected grid to have size 2 in last dimension, but got grid "
            r"with sizes \[2, 2, 2, 3\]")
        check_error(lambda lib: lib.nn.functional.grid_sample(
            lib.ones(2, 1, 2, 2), lib.zeros(3, 2, 2, 2)), RuntimeError,
            r"grid_sampler\(\): expected grid and input to have same batch size")
        check_error(lambda lib: lib.nn.functional.affine_grid(
            lib.zeros(2, 3, 3), (2, 3, 4, 4)), ValueError,
                    r"Expected a batch of 2D affine matrices of shape Nx2x3 for size "
                    r"\(2, 3, 4, 4\)")
        check_error(lambda lib: lib.nn.functional.affine_grid(
            lib.zeros(2, 2, 3), (3, 3, 4, 4)), RuntimeError,
                    r"Expected size for first two dimensions of batch2 tensor to be: \[3, 3\] "
                    r"but got: \[2, 3\]")
        check_error(lambda lib: lib.nn.functional.affine_grid(lib.zeros(2, 2, 3), (2, 3, 4)),
                    NotImplementedError, r"affine_grid only supports 4D and 5D sizes")
        check_error(lambda lib: lib.nn.functional.grid_sample(
            lib.ones(1, 1, 2, 2, 2), lib.zeros(1, 2, 2, 2, 3), mode="bicubic"), RuntimeError,
            r"grid_sampler\(\): bicubic interpolation only supports 4D input")
        check_error(lambda lib: lib.nn.functional.grid_sample(
            lib.ones(1, 1, 2, 2, 2), lib.zeros(1, 2, 2, 2)), RuntimeError,
            r"grid_sampler\(\): expected grid to have size 3 in last dimension")
    out = ember.nn.functional.grid_sample(ember.ones(1, 1, 2, 2, 2, requires_grad=True),
                                          ember.zeros(1, 1, 1, 1, 3), align_corners=False)
    assert type(out.grad_fn).__name__ == "GridSampler3DBackward0"
