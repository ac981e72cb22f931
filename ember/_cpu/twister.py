"""Kernel family `twister`: reading MT19937's stream, the words torch's CPU generator
draws (NumPy reference).

The twister is NumPy's `np.random.MT19937` bit generator; its `random_raw` gives the
words. The compiled twin (ember/_cpu/numba/twister.py) runs the same recurrence on the
generator's state for long reads, writing the results straight into their final dtype.

    words32(bits, n)         the next n 32-bit words (uint32)
    words64(bits, n)         the next n 64-bit values (uint64), two words each, the
                             first the high half
    unit_floats(bits, n, double)
                             n uniform draws in [0, 1) as torch makes them: float32 from
                             the low 24 bits of a word, or float64 from the low 53 bits of
                             a 64-bit value
"""
from __future__ import annotations

import numpy as np


def words32(bits: np.random.MT19937, n: int) -> np.ndarray:
    return bits.random_raw(n).astype(np.uint32)


def words64(bits: np.random.MT19937, n: int) -> np.ndarray:
    words = bits.random_raw(2 * n)
    return (words[0::2] << np.uint64(32)) | words[1::2]


def unit_floats(bits: np.random.MT19937, n: int, double: bool) -> np.ndarray:
    if double:
        return (words64(bits, n) & np.uint64((1 << 53) - 1)).astype(np.float64) * 2.0 ** -53
    return (words32(bits, n) & np.uint32((1 << 24) - 1)).astype(np.float32) * \
        np.float32(2.0 ** -24)
