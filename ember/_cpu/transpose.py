"""Fast transposes: C-contiguous copies of transposed layouts through OpenBLAS.

NumPy copies a transposed array one element at a time along the destination's rows,
reading the source a whole row apart each step; OpenBLAS's `?omatcopy` kernels
transpose in small register blocks, 5-10x faster on the layout changes a convolution
makes (measured: a (64, 36864) float32 transpose takes 6.7 ms in NumPy and 1.1 ms in
OpenBLAS). Large transposes are split into row blocks done on all threads at once.
Without OpenBLAS (or for other dtypes) NumPy does the copy: the results are the same.
"""
from __future__ import annotations

import math

import numpy as np

from . import buffers
from .openblas import LIBRARY
from .parallel import parallel_for, split, threads
from .tuning import MIN_PARALLEL_TRANSPOSE, MIN_TRANSPOSE_MATRIX

_ROW_MAJOR, _TRANSPOSE = 101, 112


def transpose(a: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """The transpose of the 2-D array `a` as a C-contiguous array (written into `out`
    if given, which must be C-contiguous with the transposed shape)."""
    rows, cols = a.shape
    if out is None:
        out = np.empty((cols, rows), dtype=a.dtype)
    # OpenBLAS reads rows of unit-stride elements at a fixed distance from each other.
    row_major = a.strides[1] == a.itemsize and a.strides[0] % a.itemsize == 0 and \
        a.strides[0] >= cols * a.itemsize
    if a.dtype not in LIBRARY.omatcopy or not row_major or not out.flags.c_contiguous \
            or a.size < MIN_TRANSPOSE_MATRIX:
        np.copyto(out, a.T)
        return out
    _transpose_matrices([(a.ctypes.data, out.ctypes.data)], rows, cols,
                        a.strides[0] // a.itemsize, a.dtype)
    return out


def contiguous(a: np.ndarray) -> np.ndarray:
    """`a` as a C-contiguous array: `a` itself when it already is, else a copy. Copies of
    transposed layouts (a batch of matrices stored the other way round, e.g. a
    (C, H, W, N) view of an (N, C, H, W) array) go through OpenBLAS's transposes."""
    if a.flags.c_contiguous:
        return a
    plan = _transposed_layout(a) if type(a) is np.ndarray and a.dtype in LIBRARY.omatcopy \
        else None
    if plan is None:
        return buffers.copy(a)
    prefix, rows, cols, row_stride = plan
    out = buffers.empty(a.shape, a.dtype)
    source = a.reshape([n for n in a.shape if n != 1])   # a view: size-1 axes dropped
    target = out.reshape(prefix + (cols, rows))
    _transpose_matrices([(source[index].ctypes.data, target[index].ctypes.data)
                         for index in np.ndindex(*prefix)], rows, cols, row_stride, a.dtype)
    return out


def _transpose_matrices(addresses, rows: int, cols: int, row_stride: int, dtype) -> None:
    """For each (source, target) address pair: target (cols x rows, C order) = the
    transpose of source (rows x cols, rows `row_stride` elements apart). A few large
    matrices are split into row blocks so that every thread has work."""
    copy, itemsize = LIBRARY.omatcopy[dtype], dtype.itemsize
    values = len(addresses) * rows * cols
    parallel = values >= MIN_PARALLEL_TRANSPOSE and len(addresses) < threads()
    blocks = split(rows, threads()) if parallel else [slice(0, rows)]

    def transpose_block(piece):
        (source, target), block = piece
        copy(_ROW_MAJOR, _TRANSPOSE, block.stop - block.start, cols, 1.0,
             source + block.start * row_stride * itemsize, row_stride,
             target + block.start * itemsize, rows)

    parallel_for([(pair, block) for pair in addresses for block in blocks], transpose_block,
                 values if values >= MIN_PARALLEL_TRANSPOSE else 0)


def _transposed_layout(a: np.ndarray):
    """How `a` is a batch of transposed matrices, or None: (batch shape, rows, cols, row
    stride) such that a[batch] read in C order is the transpose of a rows x cols matrix
    of unit-stride rows `row stride` elements apart. Axes of size 1 are ignored."""
    shape = [n for n in a.shape if n != 1]
    strides = [s for n, s in zip(a.shape, a.strides) if n != 1]
    if a.size < MIN_TRANSPOSE_MATRIX or any(s <= 0 or s % a.itemsize for s in strides):
        return None
    strides = [s // a.itemsize for s in strides]
    # The logical axes end with [columns group, rows group]: the columns group is the
    # matrix's unit-stride memory rows, the rows group steps over those rows.
    for middle in range(len(shape) - 1, 0, -1):
        start = middle
        while start > 0 and _dense(shape[start - 1:middle], strides[start - 1:middle], 1):
            start -= 1
        if start == middle:
            continue
        cols, row_stride = math.prod(shape[start:middle]), strides[-1]
        if row_stride < cols or not _dense(shape[middle:], strides[middle:], row_stride):
            continue
        prefix = tuple(shape[:start])
        if math.prod(prefix) * MIN_TRANSPOSE_MATRIX <= a.size:
            return prefix, math.prod(shape[middle:]), cols, row_stride
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
    return buffers.copy(view) if view.flags.c_contiguous else contiguous(view)
