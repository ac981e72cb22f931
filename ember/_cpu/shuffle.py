"""Kernel family `shuffle`: the swaps of a Fisher-Yates shuffle (NumPy reference).

A shuffle of n elements is fixed by its picks: at step i (0 <= i < n - 1) the element at
i swaps with the one at i + picks[i], picks[i] being in [0, n - i). randperm draws the
picks (ember/_sampling.py); the swaps themselves are sequential, a Python loop here and a
compiled one in the twin (ember/_cpu/numba/shuffle.py).
"""
from __future__ import annotations

import numpy as np


def fisher_yates(picks: np.ndarray) -> np.ndarray:
    """The permutation of 0 .. len(picks) (int64) the picks make."""
    order = list(range(len(picks) + 1))
    for i, pick in enumerate(picks.tolist()):
        j = i + pick
        order[i], order[j] = order[j], order[i]
    return np.array(order, dtype=np.int64)
