"""Reusable temporary arrays, lent out one slot at a time.

Allocating a fresh multi-megabyte temporary costs more than the arithmetic done on it:
blocks above glibc's mmap threshold (32 MB at most) come from new mappings, and the
kernel zeroes every page on first touch (a 75 MB convolution column buffer: 13 ms of
faults against 4 ms of copying). A ThreadScratch keeps one growing buffer per slot and
lends out views of it:

    with SCRATCH.lend(shape, dtype, slot) as buf:
        ...                      # buf is valid only inside the block

Asking for a slot that is still lent raises, so two temporaries can never share memory
by mistake; roles whose lifetimes do not overlap may share a slot.
"""
from __future__ import annotations

import math
import threading
from contextlib import contextmanager

import numpy as np


class ThreadScratch(threading.local):
    """Buffers by (dtype, slot), each thread with its own (two threads running
    convolutions at once must not share a buffer)."""

    def __init__(self):
        self._buffers = {}
        self._lent = set()

    def __getstate__(self):       # temporaries are not part of a pickled owner
        return {}

    def __setstate__(self, state):
        self.__init__()

    @contextmanager
    def lend(self, shape, dtype, slot: int = 0):
        """An uninitialised array of `shape` and `dtype`, valid until the block ends."""
        if slot in self._lent:
            raise RuntimeError(f"scratch slot {slot} is still lent out: its temporary "
                               "would be overwritten")
        dtype = np.dtype(dtype)
        size = math.prod(shape)
        buf = self._buffers.get((dtype, slot))
        if buf is None or buf.size < size:
            buf = self._buffers[dtype, slot] = np.empty(size, dtype=dtype)
        self._lent.add(slot)
        try:
            yield buf[:size].reshape(shape)
        finally:
            self._lent.discard(slot)
