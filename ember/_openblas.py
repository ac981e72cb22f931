"""NumPy's OpenBLAS, reached directly for the two things NumPy does not expose.

- The size of its thread pool (torch.set_num_threads, see _threads.py).
- Out-of-place matrix transposes (`?omatcopy`). NumPy copies a transposed array one
  element at a time along the destination's rows, reading the source a whole row apart
  each step; OpenBLAS's kernels transpose in small register blocks, 5-10x faster on the
  layout changes a convolution makes (measured: a (64, 36864) float32 transpose takes
  6.7 ms in NumPy and 1.1 ms in OpenBLAS).

The library is found among the shared objects the process has loaded (NumPy loaded it);
its exported names depend on how it was built (a `scipy_` prefix and a `64_` suffix for
64-bit integers in the PyPI wheels). Where no OpenBLAS is found (another BLAS, another
system) everything here falls back to NumPy, with the same results.
"""
from __future__ import annotations

import ctypes
import math

import numpy as np

# Name stems tried with each prefix/suffix pair, most specific first.
_BUILDS = (("scipy_", "64_"), ("scipy_", ""), ("", "64_"), ("", ""))
_ROW_MAJOR, _TRANSPOSE = 101, 112
# Below this many elements a matrix transposes as fast in NumPy as in OpenBLAS.
_MIN_MATRIX = 32768


def _loaded_openblas_paths() -> list:
    try:
        with open("/proc/self/maps") as maps:
            return sorted({line.split()[-1] for line in maps if "openblas" in line.lower()})
    except OSError:
        return []


def _bind(library, stem: str, suffix: str, argtypes, restype):
    """library's function `stem` for one build's naming, typed; None if absent."""
    for prefix, ending in _BUILDS:
        if ending != suffix:
            continue
        name = f"{prefix}{stem}{ending}"
        if hasattr(library, name):
            function = getattr(library, name)
            function.argtypes, function.restype = argtypes, restype
            return function
    return None


class _OpenBLAS:
    """The functions ember calls, bound for one library (any of them may be None)."""

    def __init__(self, library=None):
        self.set_num_threads = self.get_num_threads = None
        self.omatcopy = {}
        if library is None:
            return
        for suffix in ("64_", ""):
            integer = ctypes.c_int64 if suffix else ctypes.c_int
            self.omatcopy = {}
            self.set_num_threads = _bind(library, "openblas_set_num_threads", suffix,
                                         [ctypes.c_int], None)
            self.get_num_threads = _bind(library, "openblas_get_num_threads", suffix, [],
                                         ctypes.c_int)
            for dtype, stem, scalar in ((np.float32, "cblas_somatcopy", ctypes.c_float),
                                        (np.float64, "cblas_domatcopy", ctypes.c_double)):
                function = _bind(library, stem, suffix,
                                 [ctypes.c_int, ctypes.c_int, integer, integer, scalar,
                                  ctypes.c_void_p, integer, ctypes.c_void_p, integer], None)
                if function is not None:
                    self.omatcopy[np.dtype(dtype)] = function
            if self.get_num_threads is not None:
                return


def _load() -> _OpenBLAS:
    for path in _loaded_openblas_paths():
        try:
            found = _OpenBLAS(ctypes.CDLL(path))
        except OSError:
            continue
        if found.get_num_threads is not None:
            return found
    return _OpenBLAS()


LIBRARY = _load()


def transpose(a: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """The transpose of the 2-D array `a` as a C-contiguous array (written into `out`
    if given, which must be C-contiguous with the transposed shape)."""
    rows, cols = a.shape
    if out is None:
        out = np.empty((cols, rows), dtype=a.dtype)
    copy = LIBRARY.omatcopy.get(a.dtype)
    # OpenBLAS reads rows of unit-stride elements at a fixed distance from each other.
    row_major = a.strides[1] == a.itemsize and a.strides[0] % a.itemsize == 0 and \
        a.strides[0] >= cols * a.itemsize
    if copy is None or not row_major or not out.flags.c_contiguous or a.size < _MIN_MATRIX:
        np.copyto(out, a.T)
        return out
    copy(_ROW_MAJOR, _TRANSPOSE, rows, cols, 1.0, a.ctypes.data, a.strides[0] // a.itemsize,
         out.ctypes.data, rows)
    return out


def contiguous(a: np.ndarray) -> np.ndarray:
    """`a` as a C-contiguous array: `a` itself when it already is, else a copy. Copies of
    transposed layouts (a batch of matrices stored the other way round, e.g. a
    (C, H, W, N) view of an (N, C, H, W) array) go through OpenBLAS's transposes."""
    if a.flags.c_contiguous:
        return a
    plan = _transposed_layout(a) if a.dtype in LIBRARY.omatcopy else None
    if plan is None:
        return np.ascontiguousarray(a)
    prefix, rows, cols, row_stride = plan
    out = np.empty(a.shape, dtype=a.dtype)
    source = a.reshape(prefix + a.shape[len(prefix):])   # a view: only size-1 axes differ
    copy = LIBRARY.omatcopy[a.dtype]
    target = out.reshape(prefix + (cols, rows))
    for index in np.ndindex(*prefix):
        copy(_ROW_MAJOR, _TRANSPOSE, rows, cols, 1.0, source[index].ctypes.data, row_stride,
             target[index].ctypes.data, rows)
    return out


def _transposed_layout(a: np.ndarray):
    """How `a` is a batch of transposed matrices, or None: (batch shape, rows, cols, row
    stride) such that a[batch] read in C order is the transpose of a rows x cols matrix
    of unit-stride rows `row stride` elements apart. Axes of size 1 are ignored."""
    shape = [n for n in a.shape if n != 1]
    strides = [s for n, s in zip(a.shape, a.strides) if n != 1]
    if a.size < _MIN_MATRIX or any(s <= 0 or s % a.itemsize for s in strides):
        return None
    strides = [s // a.itemsize for s in strides]
    # The logical axes end with [columns group, rows group]: the columns group is the
    # matrix's unit-stride memory rows, the rows group steps over those rows.
    for split in range(len(shape) - 1, 0, -1):
        start = split
        while start > 0 and _dense(shape[start - 1:split], strides[start - 1:split], 1):
            start -= 1
        if start == split:
            continue
        cols, row_stride = math.prod(shape[start:split]), strides[-1]
        if row_stride < cols or not _dense(shape[split:], strides[split:], row_stride):
            continue
        prefix = tuple(shape[:start])
        if math.prod(prefix) * _MIN_MATRIX <= a.size:
            return prefix, math.prod(shape[split:]), cols, row_stride
    return None


def _dense(shape, strides, inner: int) -> bool:
    """Whether axes `shape` with `strides` are C-ordered with innermost stride `inner`."""
    expected = inner
    for n, stride in zip(reversed(shape), reversed(strides)):
        if stride != expected:
            return False
        expected *= n
    return True


def move_first_axes_last(a: np.ndarray, count: int = 1) -> np.ndarray:
    """C-contiguous copy of `a` with its first `count` axes moved to the end
    (e.g. (N, C, H, W) -> (C, H, W, N))."""
    a = np.ascontiguousarray(a)
    return _new_contiguous(a.transpose(tuple(range(count, a.ndim)) + tuple(range(count))))


def move_last_axes_first(a: np.ndarray, count: int = 1) -> np.ndarray:
    """C-contiguous copy of `a` with its last `count` axes moved to the front
    (e.g. (C, H, W, N) -> (N, C, H, W))."""
    a = np.ascontiguousarray(a)
    lead = a.ndim - count
    return _new_contiguous(a.transpose(tuple(range(lead, a.ndim)) + tuple(range(lead))))


def _new_contiguous(view: np.ndarray) -> np.ndarray:
    """A C-contiguous copy of `view` that never shares its memory."""
    return view.copy() if view.flags.c_contiguous else contiguous(view)
