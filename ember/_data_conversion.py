"""Python data to NumPy arrays with torch's rules: dtype inference for nested lists,
scalars, arrays and tensors, and torch's errors for ragged data.

Tensor-layer helpers: the tensor factories (ops.creation) and the legacy constructors
(torch.FloatTensor(...), Tensor.new(...)) both build on them.
"""
from __future__ import annotations

import numpy as np

from . import _dtype
from ._tensor import Tensor

__all__ = ["array_from_data", "is_sequence_like"]


def is_sequence_like(x) -> bool:
    """Whether torch reads `x` as a sequence of elements: anything with len() and indexing
    (a deque, an array.array, a memoryview, a user's class), but not a mapping, text or
    bytes, nor an array or a tensor (converted whole)."""
    kind = type(x)
    return (hasattr(kind, "__len__") and hasattr(kind, "__getitem__")
            and not isinstance(x, (str, bytes, dict, np.ndarray, Tensor)))


def array_from_data(data, dtype: _dtype.dtype | None = None, copy: bool = True) -> np.ndarray:
    """A NumPy array of `data` (nested lists, scalars, arrays, tensors) with torch's
    dtype inference: Python floats -> default dtype, ints -> int64, bools -> bool,
    NumPy arrays/scalars and tensors (also inside lists) keep their own dtype."""
    if isinstance(data, Tensor):
        arr = data._data
    elif isinstance(data, (np.ndarray, np.generic)):
        arr = np.asarray(data)
        _dtype.from_numpy_dtype(arr.dtype)
    else:
        if isinstance(data, (str, bytes)):
            raise TypeError(f"new(): invalid data type '{type(data).__name__}'")
        if is_sequence_like(data) and not isinstance(data, (list, tuple)):
            data = list(data)       # a deque of tensors converts as a list of them
        target = dtype or _infer_dtype(data) or _dtype.get_default_dtype()
        return _nested_to_array(data, target)
    target = arr.dtype if dtype is None else dtype.numpy
    if arr.dtype == target and not copy:
        return arr
    return np.array(arr, dtype=target, copy=True)


_PY_SCALAR_DTYPES = {
    bool: lambda: _dtype.bool,
    int: lambda: _dtype.int64,
    float: _dtype.get_default_dtype,
    complex: lambda: _dtype.get_default_dtype().to_complex(),
}


def _infer_dtype(data) -> _dtype.dtype | None:
    """torch's dtype for `data`: the promotion of its elements' dtypes (None if empty)."""
    if is_sequence_like(data):
        result = None
        types = set(map(type, data))
        for t in types & _PY_SCALAR_DTYPES.keys():
            d = _PY_SCALAR_DTYPES[t]()
            result = d if result is None else _dtype.promote_types(result, d)
        if types - _PY_SCALAR_DTYPES.keys():
            for x in data:
                if type(x) not in _PY_SCALAR_DTYPES:
                    d = _infer_dtype(x)
                    if d is not None:
                        result = d if result is None else _dtype.promote_types(result, d)
        return result
    if isinstance(data, Tensor):
        return data.dtype
    if isinstance(data, (np.ndarray, np.generic)):
        return _dtype.from_numpy_dtype(data.dtype)
    for t, d in _PY_SCALAR_DTYPES.items():
        if isinstance(data, t):
            return d()
    if isinstance(data, (str, bytes)):
        raise TypeError(f"new(): invalid data type '{type(data).__name__}'")
    raise RuntimeError(f"Could not infer dtype of {type(data).__name__}")


def _nested_to_array(data, dt: _dtype.dtype) -> np.ndarray:
    if isinstance(data, (list, tuple)) and any(isinstance(x, Tensor) for x in data):
        data = [_tensor_element(x, dt) for x in data]
    try:
        arr = np.array(data, dtype=dt.numpy)
    except OverflowError:
        raise ValueError("Overflow when unpacking long long") from None
    except (ValueError, TypeError):
        _raise_shape_error(data, dt)
        raise
    if arr.dtype == object:
        _raise_shape_error(data, dt)
    return arr


def _is_sequence(x) -> bool:
    return is_sequence_like(x) or (isinstance(x, np.ndarray) and x.ndim > 0)


def _raise_shape_error(data, dt: _dtype.dtype) -> None:
    """Raise torch's error for nested sequences that do not form a rectangular array.

    The expected size of each dimension is read along the first elements, as torch does.
    """
    sizes = []
    x = data
    while _is_sequence(x):
        sizes.append(len(x))
        if not len(x):
            break
        x = x[0]

    def walk(seq, dim):
        if dim == len(sizes):
            if _is_sequence(seq):
                kind = type(seq).__name__
                if dt.is_floating_point or dt.is_complex:
                    raise TypeError(f"must be real number, not {kind}")
                raise TypeError(f"'{kind}' object cannot be interpreted as an integer")
            return
        if not _is_sequence(seq):
            raise TypeError("not a sequence")
        if len(seq) != sizes[dim]:
            raise ValueError(f"expected sequence of length {sizes[dim]} at dim {dim} "
                             f"(got {len(seq)})")
        for item in seq:
            walk(item, dim + 1)

    walk(data, 0)


def _tensor_element(x, dt: _dtype.dtype):
    """A tensor inside a list contributes one scalar, as in torch: read as an index (one
    element of an integer or bool tensor) when the result is integral, else as a number."""
    if not isinstance(x, Tensor):
        return x
    if not (dt.is_floating_point or dt.is_complex):
        if x.numel() != 1 or x.is_floating_point() or x.is_complex():
            raise TypeError("only integer tensors of a single element can be converted to an "
                            "index")
    elif x.numel() != 1:
        raise ValueError("only one element tensors can be converted to Python scalars")
    return x._data.reshape(())
