"""The `box_muller` kernel family (ember/_cpu/box_muller.py and its numba twin): normal
samples equal torch's to the bit in both kernel modes (float32; float64 to the last bit),
and the twin agrees with the reference, including the polynomial log and sincos over
their whole input ranges."""
import numpy as np
import pytest
import torch

import ember
from ember._cpu import box_muller as reference


@pytest.mark.parametrize("n", [16, 17, 33, 1000, 20_000])
def test_float32_normals_are_torchs_in_both_modes(kernels, n):
    for seed, (mean, std) in ((0, (0.0, 1.0)), (5, (0.5, 2.0)), (9, (-3.0, 0.02))):
        torch.manual_seed(seed)
        expected = torch.empty(n).normal_(mean, std).numpy()
        ember.manual_seed(seed)
        np.testing.assert_array_equal(ember.empty(n).normal_(mean, std).numpy(), expected)


def test_float64_normals_to_the_last_bit(kernels):
    torch.manual_seed(3)
    expected = torch.randn(5000, dtype=torch.float64).numpy()
    ember.manual_seed(3)
    np.testing.assert_allclose(ember.randn(5000, dtype=ember.float64).numpy(), expected,
                               rtol=4e-16, atol=0)


def test_log_and_sincos_follow_the_c_library_within_two_units():
    x = np.random.default_rng(0).random(100_000).astype(np.float32) + np.float32(2 ** -24)
    np.testing.assert_allclose(reference.log_f32(x), np.log(x.astype(np.float64)),
                               rtol=3e-7, atol=3e-8)
    theta = np.float32(2 * np.pi) * x
    sin, cos = reference.sincos_f32(theta)
    np.testing.assert_allclose(sin, np.sin(theta.astype(np.float64)), atol=3e-7)
    np.testing.assert_allclose(cos, np.cos(theta.astype(np.float64)), atol=3e-7)


def test_the_twin_agrees_with_the_reference():
    if not ember._cpu.kernels.numba_available():
        pytest.skip("numba is not installed")
    from ember._cpu.numba import box_muller as compiled
    rng = np.random.default_rng(1)
    draws = rng.random(16 * 4000).astype(np.float32)
    draws[:16] = [0, np.float32(1 - 2 ** -24)] * 8       # the ends of [0, 1)
    for std, mean in ((np.float32(1), np.float32(0)), (np.float32(0.3), np.float32(-2))):
        np.testing.assert_array_equal(compiled.box_muller_16(draws, std, mean),
                                      reference.box_muller_16(draws, std, mean))
    # every 7th value torch's float32 draws can take (multiples of 2**-24), in both halves
    grid = (np.arange(0, 2 ** 24, 7, dtype=np.float64) * 2.0 ** -24).astype(np.float32)
    grid = grid[: grid.size // 16 * 16]
    np.testing.assert_array_equal(compiled.box_muller_16(grid, np.float32(1), np.float32(0)),
                                  reference.box_muller_16(grid, np.float32(1), np.float32(0)))
    shifted = np.roll(grid, 8)              # each value also as the angle's draw
    np.testing.assert_array_equal(compiled.box_muller_16(shifted, np.float32(1), np.float32(0)),
                                  reference.box_muller_16(shifted, np.float32(1), np.float32(0)))

