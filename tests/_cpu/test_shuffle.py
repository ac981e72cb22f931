"""The `shuffle` kernel family (ember/_cpu/shuffle.py and its numba twin): randperm gives
torch's permutation for a seed in both kernel modes, and the two implementations agree."""
import numpy as np
import pytest
import torch

import ember
from ember._cpu import shuffle as reference


@pytest.mark.parametrize("n", [0, 1, 2, 3, 17, 1000, 70_000])
def test_randperm_is_torchs_in_both_modes(kernels, n):
    for seed in (0, 9):
        expected = torch.randperm(n, generator=torch.Generator().manual_seed(seed)).numpy()
        got = ember.randperm(n, generator=ember.Generator().manual_seed(seed)).numpy()
        np.testing.assert_array_equal(got, expected)


def test_the_twin_agrees_with_the_reference():
    if not ember._cpu.kernels.numba_available():
        pytest.skip("numba is not installed")
    from ember._cpu.numba import shuffle as compiled
    rng = np.random.default_rng(0)
    for n in (1, 2, 50, 5000):
        picks = (rng.integers(0, 1 << 32, n - 1, dtype=np.uint64) %
                 np.arange(n, 1, -1, dtype=np.uint64)).astype(np.uint32)
        order = compiled.fisher_yates(picks)
        np.testing.assert_array_equal(order, reference.fisher_yates(picks))
        assert order.dtype == np.int64 and sorted(order.tolist()) == list(range(n))
