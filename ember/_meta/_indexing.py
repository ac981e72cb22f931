"""Indexing a MetaArray: basic indexing (ints, slices, None, ...) gives a view with NumPy's
shape and strides; integer-array indexing gives a new array of the broadcast index shape,
placed as NumPy places it. A boolean mask selects a number of elements only the data
knows, so it is refused."""
from __future__ import annotations

import numpy as np

from ._array import MetaArray, MetaUnsupported
from ._layout import with_new_dims


def _is_int(k) -> bool:
    return isinstance(k, (int, np.integer)) and not isinstance(k, (bool, np.bool_))


def _as_index_array(k):
    """An integer index array (a list, an ndarray or a MetaArray), or None for other keys."""
    if isinstance(k, list):
        k = np.asarray(k)
    if isinstance(k, (np.ndarray, MetaArray)):
        if k.dtype == np.bool_:
            raise MetaUnsupported("boolean mask indexing (its result size depends on the data)")
        if k.dtype.kind not in "iu":
            raise IndexError("arrays used as indices must be of integer (or boolean) type")
        return k
    return None


def index_result(array: MetaArray, key) -> MetaArray:
    """array[key] as a MetaArray."""
    key = key if isinstance(key, tuple) else (key,)
    if any(isinstance(k, (bool, np.bool_)) for k in key):
        raise MetaUnsupported("boolean indexing of a meta array")
    consumed = sum(0 if k is None or k is Ellipsis else 1 for k in key)
    if consumed > array.ndim:
        raise IndexError(f"too many indices for array: array is {array.ndim}-dimensional, but "
                         f"{consumed} were indexed")
    if Ellipsis in [k for k in key if not isinstance(k, (np.ndarray, MetaArray, list))]:
        at = next(i for i, k in enumerate(key) if k is Ellipsis)
        key = key[:at] + (slice(None),) * (array.ndim - consumed) + key[at + 1:]
    else:
        key = key + (slice(None),) * (array.ndim - consumed)
    # With an array among the keys, NumPy treats the integer keys as arrays too.
    has_array = any(isinstance(k, (list, np.ndarray, MetaArray)) for k in key)
    shape, strides = [], []
    advanced, advanced_at, gaps = [], None, False
    new_dims = []
    dim = 0
    for k in key:
        if k is None:
            new_dims.append(len(shape))
            shape.append(1)
            strides.append(0)
            gaps = gaps or bool(advanced)
            continue
        n, stride = array.shape[dim], array.strides[dim]
        dim += 1
        if _is_int(k):
            if not -n <= k < n:
                raise IndexError(f"index {k} is out of bounds for axis {dim - 1} with size {n}")
            if has_array:
                advanced_at = _place(advanced, advanced_at, gaps, len(shape))
                advanced.append(())
            continue
        if isinstance(k, slice):
            start, stop, step = k.indices(n)
            shape.append(len(range(start, stop, step)))
            strides.append(stride * step)
            gaps = gaps or bool(advanced)
            continue
        index = _as_index_array(k)
        if index is None:
            raise IndexError("only integers, slices (`:`), ellipsis (`...`), numpy.newaxis "
                             "(`None`) and integer or boolean arrays are valid indices")
        if isinstance(index, np.ndarray) and index.size and (index.max() >= n or
                                                             index.min() < -n):
            bad = index.max() if index.max() >= n else index.min()
            raise IndexError(f"index {bad} is out of bounds for axis {dim - 1} with size {n}")
        advanced_at = _place(advanced, advanced_at, gaps, len(shape))
        advanced.append(index.shape)
    if not advanced:
        return MetaArray(shape, array.dtype,
                         with_new_dims(shape, strides, new_dims, array.itemsize))
    index_shape = np.broadcast_shapes(*advanced)
    shape[advanced_at:advanced_at] = index_shape
    return MetaArray(tuple(shape), array.dtype)


def _place(advanced: list, advanced_at, gaps: bool, position: int) -> int:
    """Where the array indices' dims go: where the first one stood, or first of all when a
    slice or None separates two of them (NumPy's rule)."""
    if not advanced:
        return position
    return 0 if gaps else advanced_at
