"""Python data to NumPy arrays with torch's rules: dtype inference for nested lists,
scalars, arrays and tensors, and torch's errors for ragged data.

Tensor-layer helpers: the tensor factories (ops.creation) and the legacy constructors
(torch.FloatTensor(...), Tensor.new(...)) both build on them.
"""
from __future__ import annotations

import builtins

import numpy as np

from . import _dtype
from ._tensor import Tensor

__all__ = ["array_from_data"]


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
    if isinstance(data, (list, tuple, builtins.range)):
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
    if isinstance(data, str):
        raise TypeError("new(): invalid data type 'str'")
    raise RuntimeError(f"Could not infer dtype of {type(data).__name__}")


def _nested_to_array(data, dt: _dtype.dtype) -> np.ndarray:
    if isinstance(data, (list, tuple)) and any(isinstance(x, Tensor) for x in data):
        data = [_tensor_element(x) for x in data]
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
    return isinstance(x, (list, tuple, builtins.range)) or (isinstance(x, np.ndarray) and x.ndim > 0)


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


def _tensor_element(x):
    """A tensor inside a list contributes one scalar, as in torch."""
    if not isinstance(x, Tensor):
        return x
    if x.numel() != 1:
        if not (x.is_floating_point() or x.is_complex()):
            raise TypeError("only integer tensors of a single element can be converted to an "
                            "index")
        raise ValueError("only one element tensors can be converted to Python scalars")
    return x._data.reshape(())
