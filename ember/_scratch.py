"""Reusable temporary arrays.

Allocating a fresh multi-megabyte temporary costs more than the arithmetic done on it:
blocks above glibc's mmap threshold (32 MB at most) come from new mappings, and the
kernel zeroes every page on first touch (a 75 MB convolution column buffer: 13 ms of
faults against 4 ms of copying). A Scratch keeps one growing buffer per slot and hands
out views of it, so a caller that is done with a temporary before it asks for the next
one reuses the same memory.
"""
from __future__ import annotations

import math
import threading

import numpy as np


class Scratch:
    """Buffers by (dtype, slot). A view stays valid until the same slot is asked for
    again: use it only for temporaries that end before the next request."""

    def __init__(self):
        self._buffers = {}

    def __getstate__(self):       # temporaries are not part of a pickled owner
        return {}

    def __setstate__(self, state):
        self._buffers = {}

    def empty(self, shape, dtype, slot: int = 0) -> np.ndarray:
        dtype = np.dtype(dtype)
        size = math.prod(shape)
        buf = self._buffers.get((dtype, slot))
        if buf is None or buf.size < size:
            buf = self._buffers[dtype, slot] = np.empty(size, dtype=dtype)
        return buf[:size].reshape(shape)

    def like(self, array: np.ndarray, slot: int = 0) -> np.ndarray:
        return self.empty(array.shape, array.dtype, slot)


class ThreadScratch(threading.local):
    """A Scratch of the calling thread's own, for module-level users (two threads running
    convolutions at once must not share a buffer)."""

    def __init__(self):
        self.scratch = Scratch()
