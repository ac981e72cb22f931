"""Tensor creation: tensor/as_tensor/from_numpy and the zeros/ones/arange family."""
from __future__ import annotations

import math
import warnings

import numpy as np

from .. import _dtype
from .._device import check_device
from .._tensor import Tensor

__all__ = ["tensor", "as_tensor", "from_numpy", "scalar_tensor", "zeros", "ones", "empty", "full",
           "zeros_like", "ones_like", "empty_like", "full_like", "arange", "range", "linspace",
           "logspace", "eye"]


def array_from_data(data, dtype: _dtype.dtype | None = None, copy: bool = True) -> np.ndarray:
    """A NumPy array of `data` (nested lists, scalars, arrays, tensors) with torch's
    dtype inference: Python floats -> default dtype, ints -> int64, bools -> bool."""
    if isinstance(data, Tensor):
        arr = data._data
        inferred = arr.dtype
    elif isinstance(data, np.ndarray):
        arr = data
        inferred = _dtype.from_numpy_dtype(arr.dtype).numpy
    elif isinstance(data, np.generic):
        arr = np.asarray(data)
        inferred = _dtype.from_numpy_dtype(arr.dtype).numpy
    else:
        arr = _nested_to_array(data)
        inferred = arr.dtype
        if arr.dtype == np.float64:
            inferred = _dtype.get_default_dtype().numpy
        elif arr.dtype == np.complex128:
            inferred = _dtype.get_default_dtype().to_complex().numpy
    target = dtype.numpy if dtype is not None else inferred
    if arr.dtype == target and not copy:
        return arr
    return np.array(arr, dtype=target, copy=True)


def _nested_to_array(data) -> np.ndarray:
    if isinstance(data, str) or (isinstance(data, (list, tuple)) and _has_str(data)):
        raise TypeError(f"new(): invalid data type 'str'")
    if isinstance(data, (list, tuple)) and any(isinstance(x, Tensor) for x in data):
        data = [_tensor_element(x) for x in data]
    try:
        arr = np.array(data)
    except ValueError as err:
        raise ValueError(f"expected sequence of equal lengths at every dimension: {err}. "
                         "Hint: every inner list must have the same length.") from None
    if arr.dtype == object:
        raise TypeError(f"Could not infer dtype of {type(data).__name__}")
    if arr.dtype.kind in "iu" and arr.dtype != np.int64:
        arr = arr.astype(np.int64)
    return arr


def _has_str(seq) -> bool:
    return bool(seq) and isinstance(seq[0], str)


def _tensor_element(x):
    if isinstance(x, Tensor):
        if x.numel() != 1 and x.ndim == 0:
            raise ValueError("only one element tensors can be converted to Python scalars")
        return x._data if x.ndim else x.item()
    return x


def _finish(data: np.ndarray, requires_grad: bool) -> Tensor:
    t = Tensor._wrap(data)
    if requires_grad:
        t.requires_grad = True
    return t


def tensor(data, *, dtype=None, device=None, requires_grad: bool = False,
           pin_memory: bool = False) -> Tensor:
    """A new tensor holding a copy of `data`."""
    check_device(device)
    if isinstance(data, Tensor):
        warnings.warn("To copy construct from a tensor, it is recommended to use "
                      "sourceTensor.detach().clone() or sourceTensor.detach().clone()."
                      "requires_grad_(True), rather than torch.tensor(sourceTensor).",
                      UserWarning, stacklevel=2)
    return _finish(array_from_data(data, dtype), requires_grad)


def as_tensor(data, dtype=None, device=None) -> Tensor:
    """Like tensor(), but shares memory with a Tensor or NumPy array when no cast is needed."""
    check_device(device)
    if isinstance(data, Tensor):
        return data if dtype is None or dtype is data.dtype else data.to(dtype)
    if isinstance(data, np.ndarray):
        return Tensor._wrap(array_from_data(data, dtype, copy=False))
    return Tensor._wrap(array_from_data(data, dtype))


def from_numpy(ndarray: np.ndarray) -> Tensor:
    """A tensor sharing the array's memory (changes to one show in the other)."""
    if not isinstance(ndarray, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(ndarray).__name__})")
    _dtype.from_numpy_dtype(ndarray.dtype)
    return Tensor._wrap(ndarray)


def scalar_tensor_like(value, like) -> Tensor:
    """A zero-dim tensor for a Python number, in the dtype an op with `like` would use."""
    dt = _dtype.result_type(value, like) if isinstance(like, Tensor) else None
    return Tensor._wrap(array_from_data(value, dt))


def scalar_tensor(s, *, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    check_device(device)
    return _finish(np.array(s, dtype=(dtype or _dtype.get_default_dtype()).numpy), requires_grad)


def size_from_args(size) -> tuple:
    """Accept f(2, 3), f((2, 3)), f([2, 3]) and f(torch.Size([2, 3]))."""
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = size[0]
    dims = []
    for s in size:
        if isinstance(s, Tensor):
            s = s.item()
        if not isinstance(s, (int, np.integer)) or isinstance(s, bool):
            raise TypeError(f"empty(): argument 'size' must be tuple of ints, but found element "
                            f"of type {type(s).__name__}")
        if s < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: "
                               f"{list(size)}")
        dims.append(int(s))
    return tuple(dims)


def _filled(size, fill, dtype, device, requires_grad) -> Tensor:
    check_device(device)
    dt = (dtype or _dtype.get_default_dtype()).numpy
    if fill is None:
        data = np.empty(size, dtype=dt)
    elif fill == 0:
        data = np.zeros(size, dtype=dt)
    else:
        data = np.full(size, fill, dtype=dt)
    return _finish(data, requires_grad)


def zeros(*size, out=None, dtype=None, layout=None, device=None, requires_grad=False) -> Tensor:
    return _filled(size_from_args(size), 0, dtype, device, requires_grad)


def ones(*size, out=None, dtype=None, layout=None, device=None, requires_grad=False) -> Tensor:
    return _filled(size_from_args(size), 1, dtype, device, requires_grad)


def empty(*size, out=None, dtype=None, layout=None, device=None, requires_grad=False,
          pin_memory=False, memory_format=None) -> Tensor:
    return _filled(size_from_args(size), None, dtype, device, requires_grad)


def full(size, fill_value, *, out=None, dtype=None, layout=None, device=None,
         requires_grad=False) -> Tensor:
    if dtype is None:
        dtype = _dtype.result_type(fill_value.item() if isinstance(fill_value, Tensor)
                                   else fill_value)
    return _filled(size_from_args((size,)), fill_value, dtype, device, requires_grad)


def _like(input: Tensor, fill, dtype, device, requires_grad) -> Tensor:
    return _filled(input._data.shape, fill, dtype or input.dtype, device, requires_grad)


def zeros_like(input, *, dtype=None, layout=None, device=None, requires_grad=False,
               memory_format=None) -> Tensor:
    return _like(input, 0, dtype, device, requires_grad)


def ones_like(input, *, dtype=None, layout=None, device=None, requires_grad=False,
              memory_format=None) -> Tensor:
    return _like(input, 1, dtype, device, requires_grad)


def empty_like(input, *, dtype=None, layout=None, device=None, requires_grad=False,
               memory_format=None) -> Tensor:
    return _like(input, None, dtype, device, requires_grad)


def full_like(input, fill_value, *, dtype=None, layout=None, device=None, requires_grad=False,
              memory_format=None) -> Tensor:
    return _like(input, fill_value, dtype, device, requires_grad)


def arange(start=0, end=None, step=1, *, out=None, dtype=None, layout=None, device=None,
           requires_grad=False) -> Tensor:
    """Values start, start+step, ... below end; int64 unless an argument is a float."""
    check_device(device)
    if end is None:
        start, end = 0, start
    values = [v.item() if isinstance(v, Tensor) else v for v in (start, end, step)]
    start, end, step = values
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (end - start) * step < 0:
        raise RuntimeError("upper bound and larger bound inconsistent with step sign")
    if dtype is None:
        dtype = _dtype.result_type(*values)
    count = max(0, math.ceil((end - start) / step))
    # torch computes start + i*step in double, then casts (avoids NumPy's drift on floats).
    data = (start + np.arange(count, dtype=np.float64) * step) if dtype.is_floating_point \
        else np.arange(start, end, step)
    return _finish(data.astype(dtype.numpy), requires_grad)


def range(start=0, end=None, step=1, *, dtype=None, device=None, requires_grad=False) -> Tensor:
    warnings.warn("torch.range is deprecated and will be removed in a future release because "
                  "its behavior is inconsistent with Python's range builtin. Instead, use "
                  "torch.arange, which produces values in [start, end).", UserWarning,
                  stacklevel=2)
    count = int((end - start) // step) + 1
    data = start + np.arange(count, dtype=np.float64) * step
    return _finish(data.astype((dtype or _dtype.get_default_dtype()).numpy), requires_grad)


def linspace(start, end, steps: int, *, out=None, dtype=None, layout=None, device=None,
             requires_grad=False) -> Tensor:
    check_device(device)
    dt = dtype or _dtype.get_default_dtype()
    if steps < 0:
        raise RuntimeError("linspace(): number of steps must be non-negative")
    # torch fills the first half from start and the second half from end (symmetric error).
    idx = np.arange(steps, dtype=np.float64)
    step = (end - start) / (steps - 1) if steps > 1 else 0.0
    half = steps // 2
    data = np.where(idx < half, start + step * idx, end - step * (steps - 1 - idx))
    if dt.is_floating_point or dt.is_complex:
        return _finish(data.astype(dt.numpy), requires_grad)
    return _finish(np.trunc(data).astype(dt.numpy), requires_grad)


def logspace(start, end, steps: int, base: float = 10.0, *, out=None, dtype=None,
             layout=None, device=None, requires_grad=False) -> Tensor:
    exponents = linspace(start, end, steps, dtype=_dtype.float64)._data
    dt = dtype or _dtype.get_default_dtype()
    return _finish(np.power(base, exponents).astype(dt.numpy), requires_grad)


def eye(n: int, m: int | None = None, *, out=None, dtype=None, layout=None, device=None,
        requires_grad=False) -> Tensor:
    check_device(device)
    dt = dtype or _dtype.get_default_dtype()
    return _finish(np.eye(n, n if m is None else m, dtype=dt.numpy), requires_grad)
