"""Large result arrays reused once nothing holds them: a caching allocator for kernels.

A training step allocates the same large arrays every step (a layer's output, the
loss's gradient, a weight's gradient) and frees them before the next. glibc returns the
freed top of its heap to the system as soon as it exceeds a threshold, so each step
faults those pages in again, and the kernel zeroes every page first: measured on an LSTM
step, 1,900 faults and a third of the step's time. Rather than change malloc for the
whole process (`tune_malloc`), the kernels that make the largest arrays take them from
here:

    out = buffers.empty(shape, dtype)        # then write every element of it

An array is lent again only when the cache's own list is the last thing referring to it:
a Tensor, a view or a saved array keeps it (and its memory) off limits. So reuse can
never alias live data, and a training step gets back the memory of the step before, at
the same shapes. The arrays are uninitialised, like np.empty's.
"""
from __future__ import annotations

import math
import sys
import threading

import numpy as np

# Smaller arrays are left to malloc: it hands back the block freed last, still in the
# CPU's caches, where this cache lends the array of the same shape from a step ago
# (measured: a compiled MNIST CNN step 4 % slower with arrays from 128 KiB up cached,
# as fast as without the cache from 512 KiB up, and no page faults either way).
MIN_BYTES = 512 * 1024
# What one thread keeps at most; beyond it, free arrays of other shapes are dropped.
LIMIT_BYTES = 256 << 20

# References to a cached array nobody else holds, while `_free_one` looks at it: the
# cache's list, the loop variable and getrefcount's argument.
_UNUSED = 3


class _Cache(threading.local):
    """Arrays by (shape, dtype), each thread with its own: two threads never check and
    lend the same array at once."""

    def __init__(self):
        self.arrays = {}
        self.ids = set()        # id() of every array in `arrays`
        self.nbytes = 0


_CACHE = _Cache()


def empty(shape: tuple, dtype) -> np.ndarray:
    """An uninitialised C-contiguous array, reused from an earlier one that nothing
    references any more when there is one of this shape and dtype."""
    shape, dtype = tuple(shape), np.dtype(dtype)
    nbytes = math.prod(shape) * dtype.itemsize
    if nbytes < MIN_BYTES:
        return np.empty(shape, dtype)
    key = (shape, dtype)
    arrays = _CACHE.arrays.get(key)
    if arrays is None:
        arrays = _CACHE.arrays[key] = []
    else:
        found = _free_one(arrays, shape)
        if found is not None:
            return found
    if _CACHE.nbytes + nbytes > LIMIT_BYTES:
        _drop_unused()
        if _CACHE.nbytes + nbytes > LIMIT_BYTES:
            return np.empty(shape, dtype)
    array = np.empty(shape, dtype)
    arrays.append(array)
    _CACHE.ids.add(id(array))
    _CACHE.nbytes += nbytes
    return array


def held(array: np.ndarray) -> int:
    """How many references to `array` the cache holds (0 or 1): code that tells from
    reference counts whether it may adopt an array as it is (the autograd engine making
    a gradient a leaf's .grad) discounts them."""
    return 1 if id(array) in _CACHE.ids else 0


def empty_like(a: np.ndarray, dtype=None) -> np.ndarray:
    """An uninitialised array of a's shape (and dtype, unless given) in a's layout: from
    the cache when that layout is C-contiguous (a meta device's array: its own kind)."""
    dtype = a.dtype if dtype is None else dtype
    if type(a) is np.ndarray and a.flags.c_contiguous:
        return empty(a.shape, dtype)
    return np.empty_like(a, dtype)


def copy(a: np.ndarray) -> np.ndarray:
    """A C-contiguous copy of `a` (a meta device's array: its own kind)."""
    if type(a) is not np.ndarray:
        return np.ascontiguousarray(a)
    out = empty(a.shape, a.dtype)
    np.copyto(out, a)
    return out


def matmul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a @ b for matrices or stacks of them (a meta device's arrays: their own product)."""
    if type(a) is not np.ndarray or type(b) is not np.ndarray:
        return a @ b
    shape = np.broadcast_shapes(a.shape[:-2], b.shape[:-2]) + (a.shape[-2], b.shape[-1])
    return np.matmul(a, b, out=empty(shape, np.result_type(a, b)))


def _free_one(arrays: list, shape: tuple):
    """An array of `arrays` that nothing else refers to, or None."""
    for array in arrays:
        # An array someone reshaped in place (`a.shape = ...`) or made read-only is left.
        if sys.getrefcount(array) == _UNUSED and array.shape == shape and \
                array.flags.writeable:
            return array
    return None


def _drop_unused() -> None:
    """Forget every cached array nothing else references (its memory goes back to malloc)."""
    for key, arrays in list(_CACHE.arrays.items()):
        unused = {id(array) for array in arrays if sys.getrefcount(array) == _UNUSED}
        _CACHE.nbytes -= sum(array.nbytes for array in arrays if id(array) in unused)
        _CACHE.ids -= unused
        arrays[:] = [array for array in arrays if id(array) not in unused]
        if not arrays:
            del _CACHE.arrays[key]
