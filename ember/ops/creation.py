"""Tensor creation: tensor/as_tensor/from_numpy and the zeros/ones/arange family.

Every factory takes device=: None means the default device (set_default_device, or an open
`with torch.device(...)`), and on the meta device a factory computes only the shape and dtype
of its result (see on_meta / meta_result)."""
from __future__ import annotations

import builtins
import math
import warnings

import numpy as np

from .. import _dtype
from .._device import factory_device
from .._layout import check_layout
from .._memory_format import contiguous_format, like_layout, new_layout, preserve_format
from .._data_conversion import array_from_data
from .._meta import MetaArray
from .._size import size_from_args
from .._tensor import Tensor
from ._nondifferentiable import recorded
from .shape import as_strided

__all__ = ["tensor", "as_tensor", "from_numpy", "scalar_tensor", "zeros", "ones", "empty", "full",
           "zeros_like", "ones_like", "empty_like", "full_like", "arange", "range", "linspace",
           "logspace", "eye", "tril_indices", "triu_indices", "empty_strided",
           "empty_permuted"]
METHODS = ["new_zeros", "new_ones", "new_empty", "new_full", "new_empty_strided"]


def on_meta(device) -> bool:
    """Whether a factory given device= `device` creates a meta tensor (None: the default
    device); refuses devices ember has no memory on."""
    return factory_device(device).type == "meta"


def meta_result(shape, dtype, requires_grad: bool = False) -> Tensor:
    """A factory's result on the meta device: a contiguous tensor of `shape` and `dtype` (an
    ember or NumPy dtype) without data."""
    return _finish(MetaArray(shape, getattr(dtype, "numpy", dtype)), requires_grad)


def _placed(data: np.ndarray, device, requires_grad: bool) -> Tensor:
    """A factory's computed array as a tensor on `device` (meta keeps its shape and dtype)."""
    if on_meta(device):
        return meta_result(data.shape, data.dtype, requires_grad)
    return _finish(data, requires_grad)


def _finish(data: np.ndarray, requires_grad: bool) -> Tensor:
    """Wrap a factory's array, honouring requires_grad= with torch's check."""
    t = Tensor._wrap(data)
    if requires_grad:
        if data.dtype.kind not in "fcV":
            raise RuntimeError("Only Tensors of floating point and complex dtype can require "
                               "gradients")
        t._requires_grad = True
    return t


@recorded("tensor")
def tensor(data, *, dtype=None, device=None, requires_grad: bool = False,
           pin_memory: bool = False) -> Tensor:
    """A new tensor holding a copy of `data`."""
    factory_device(device)
    if isinstance(data, Tensor):
        warnings.warn("To copy construct from a tensor, it is recommended to use "
                      "sourceTensor.detach().clone() or sourceTensor.detach().clone()."
                      "requires_grad_(True), rather than torch.tensor(sourceTensor).",
                      UserWarning, stacklevel=2)
    return _placed(array_from_data(data, dtype), device, requires_grad)


def as_tensor(data, dtype=None, device=None) -> Tensor:
    """Like tensor(), but shares memory with a Tensor or NumPy array when no cast is needed."""
    if on_meta(device):
        return _placed(array_from_data(data, dtype), device, False)
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


@recorded("scalar_tensor")
def scalar_tensor(s, *, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    """A zero-dimensional tensor holding the number `s` (default dtype float32)."""
    return _placed(np.array(s, dtype=(dtype or _dtype.get_default_dtype()).numpy), device,
                   requires_grad)


def size_argument(sizes: tuple, size, name: str) -> tuple:
    """The size given to a creation function as f(2, 3), f((2, 3)) or f(size=(2, 3))."""
    if size is None:
        if not sizes:
            raise TypeError(f'{name}() missing 1 required positional arguments: "size"')
        return size_from_args(sizes, name)
    if sizes:
        raise TypeError(f"{name}() got multiple values for argument 'size'")
    if not isinstance(size, (tuple, list)):
        raise TypeError(f"{name}(): argument 'size' must be tuple of ints, not "
                        f"{type(size).__name__}")
    return size_from_args((size,), name)


def _filled(size, fill, dtype, device, requires_grad) -> Tensor:
    dt = (dtype or _dtype.get_default_dtype()).numpy
    if on_meta(device):
        return meta_result(size, dt, requires_grad)
    if fill is None:
        data = np.empty(size, dtype=dt)
    elif fill == 0:
        data = np.zeros(size, dtype=dt)
    else:
        data = np.full(size, fill, dtype=dt)
    return _finish(data, requires_grad)


def empty_permuted(size, physical_layout, *, dtype=None, layout=None, device=None,
                   requires_grad=False, pin_memory=False) -> Tensor:
    """Uninitialised tensor of shape `size` whose memory holds its dims in the order
    `physical_layout` (outermost first): empty_permuted((N, C, H, W), (0, 2, 3, 1)) is
    channels-last."""
    check_layout(layout, "empty_permuted")
    size, order = tuple(size), tuple(physical_layout)
    if len(size) != len(order):
        raise RuntimeError(f"Number of dimensions in size does not match the length of the "
                           f"physical_layout; i.e. len(size) = {len(size)} is not equal to "
                           f"len(physical_layout) = {len(order)}")
    for i, dim in enumerate(order):
        if not 0 <= dim < len(size):
            raise RuntimeError(f"Dimension out of range (expected to be between 0 and "
                               f"{len(size) - 1}, but got {dim} at index {i}).  NB: negative "
                               f"dims not currently supported; file an issue if you want it.")
    if len(set(order)) != len(order):
        raise RuntimeError("Duplicate dim not allowed")
    stored = _filled(tuple(size[d] for d in order), None, dtype, device, False)._data
    if 0 in size:      # no memory: give the strides torch gives (sizes counted as at least 1)
        item, strides = stored.itemsize, []
        for n in reversed(stored.shape):
            strides.insert(0, item)
            item *= max(n, 1)
        stored = _dtype.as_strided(stored, stored.shape, strides)
    return _finish(stored.transpose(np.argsort(order)), requires_grad)


@recorded("zeros", factory=True)
def zeros(*sizes, size=None, out=None, dtype=None, layout=None, device=None,
          requires_grad=False) -> Tensor:
    """Tensor of the given size filled with 0 (size as separate ints or one sequence)."""
    check_layout(layout, "zeros")
    return _filled(size_argument(sizes, size, "zeros"), 0, dtype, device, requires_grad)


@recorded("ones", factory=True)
def ones(*sizes, size=None, out=None, dtype=None, layout=None, device=None,
         requires_grad=False) -> Tensor:
    """Tensor of the given size filled with 1 (size as separate ints or one sequence)."""
    check_layout(layout, "ones")
    return _filled(size_argument(sizes, size, "ones"), 1, dtype, device, requires_grad)


@recorded("empty", factory=True)
def empty(*sizes, size=None, out=None, dtype=None, layout=None, device=None,
          requires_grad=False, pin_memory=False, memory_format=contiguous_format) -> Tensor:
    """Tensor of the given size whose values are uninitialised memory."""
    check_layout(layout, "empty")
    t = _filled(size_argument(sizes, size, "empty"), None, dtype, device, requires_grad)
    t._data = new_layout(t._data, memory_format, "empty")
    return t


@recorded("full", factory=True)
def full(size, fill_value, *, out=None, dtype=None, layout=None, device=None,
         requires_grad=False) -> Tensor:
    """Tensor of shape `size` filled with fill_value; its dtype follows fill_value (bool, int or the
    default float dtype) unless `dtype` is given."""
    if dtype is None:
        dtype = _dtype.result_type(fill_value.item() if isinstance(fill_value, Tensor)
                                   else fill_value)
    check_layout(layout, "full")
    return _filled(size_from_args((size,), "full"), fill_value, dtype, device, requires_grad)


def _like(input: Tensor, fill, dtype, device, requires_grad, memory_format,
          function: str, layout=None) -> Tensor:
    # A *_like factory creates on input's device unless told otherwise.
    device = input.device if device is None else device
    t = _filled(input._data.shape, fill, dtype or input.dtype, device, requires_grad)
    return laid_out_like(t, input, memory_format, function, layout)


def laid_out_like(t: Tensor, input: Tensor, memory_format, function: str,
                  layout=None) -> Tensor:
    """t, a *_like factory's row-major result, given the layout that factory promises:
    memory_format's, or for preserve_format the order of input's strides."""
    check_layout(layout, function)
    like = input._data
    if t.is_meta and not input.is_meta:     # the layout of input's metadata, without its data
        like = MetaArray(like.shape, like.dtype, like.strides)
    t._data = like_layout(t._data, memory_format, like, function)
    return t


@recorded("zeros_like")
def zeros_like(input, *, dtype=None, layout=None, device=None, requires_grad=False,
               memory_format=preserve_format) -> Tensor:
    """Tensor of input's shape (and dtype, unless given) filled with 0."""
    return _like(input, 0, dtype, device, requires_grad, memory_format, "zeros_like", layout)


@recorded("ones_like")
def ones_like(input, *, dtype=None, layout=None, device=None, requires_grad=False,
              memory_format=preserve_format) -> Tensor:
    """Tensor of input's shape (and dtype, unless given) filled with 1."""
    return _like(input, 1, dtype, device, requires_grad, memory_format, "ones_like", layout)


@recorded("empty_like")
def empty_like(input, *, dtype=None, layout=None, device=None, requires_grad=False,
               memory_format=preserve_format) -> Tensor:
    """Uninitialised tensor of input's shape (and dtype, unless given)."""
    return _like(input, None, dtype, device, requires_grad, memory_format, "empty_like", layout)


@recorded("full_like")
def full_like(input, fill_value, *, dtype=None, layout=None, device=None, requires_grad=False,
              memory_format=preserve_format) -> Tensor:
    """Tensor of input's shape (and dtype, unless given) filled with fill_value."""
    return _like(input, fill_value, dtype, device, requires_grad, memory_format, "full_like",
                 layout)


@recorded("arange", factory=True)
def arange(start=0, end=None, step=1, *, out=None, dtype=None, layout=None, device=None,
           requires_grad=False) -> Tensor:
    """Values start, start+step, ... below end; int64 unless an argument is a float."""
    meta = on_meta(device)
    if end is None:
        start, end = 0, start
    values = [v.item() if isinstance(v, Tensor) else v for v in (start, end, step)]
    start, end, step = values
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (end - start) * step < 0:
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    if dtype is None:
        dtype = _dtype.result_type(*values)
    if dtype is _dtype.int64:
        # torch truncates the bounds and step to integers first for int64 (only)
        start, end, step = (builtins.int(v) for v in values)
        if step == 0:
            raise ValueError("step must be nonzero")
    if all(isinstance(v, (int, np.integer)) for v in (start, end, step)):
        count = max(0, -((start - end) // step))        # exact for large integers
    else:
        count = max(0, math.ceil((end - start) / step))
    if meta:
        return meta_result((count,), dtype, requires_grad)
    _dtype.check_limited(dtype, "arange", "arange_cpu")
    if dtype in (_dtype.float32, _dtype.float64):
        data = _arange_like_torch(start, step, count, dtype.numpy)
    elif dtype.is_floating_point:
        data = start + np.arange(count, dtype=np.float64) * step
    else:
        # other integer types: the length from the given values, the elements from their
        # truncations, counted in int64 and wrapped into the dtype
        data = builtins.int(start) + np.arange(count, dtype=np.int64) * builtins.int(step)
    return _finish(data.astype(dtype.numpy), requires_grad)


def _arange_like_torch(start, step, count: int, out_dtype: np.dtype) -> np.ndarray:
    """arange values rounded exactly as torch's CPU kernel rounds them.

    torch fills blocks of 2 x 32 bytes with SIMD: each 32-byte vector starts from
    start + step * i (in double) rounded to the output type, and adds k * step to that
    rounded base; the leftover tail is start + step * i. Multiply-adds round once.
    """
    vec = 32 // np.dtype(out_dtype).itemsize
    idx = np.arange(count)
    in_blocks = idx < count // (2 * vec) * (2 * vec)
    first = np.where(in_blocks, idx - idx % vec, idx)
    wide = np.longdouble
    base = (wide(start) + wide(step) * first).astype(np.float64).astype(out_dtype)
    within = (base.astype(wide) + wide(step) * (idx - first)).astype(np.float64)
    return np.where(in_blocks, within.astype(out_dtype), base)


def range(start=0, end=None, step=1, *, dtype=None, device=None, requires_grad=False) -> Tensor:
    """Deprecated 1-D tensor from start to end inclusive in steps of `step` (arange excludes end);
    warns, as torch does."""
    warnings.warn("torch.range is deprecated and will be removed in a future release because "
                  "its behavior is inconsistent with Python's range builtin. Instead, use "
                  "torch.arange, which produces values in [start, end).", UserWarning,
                  stacklevel=2)
    count = int((end - start) // step) + 1
    dt = dtype or _dtype.get_default_dtype()
    if on_meta(device):
        return meta_result((count,), dt, requires_grad)
    data = start + np.arange(count, dtype=np.float64) * step
    return _finish(data.astype(dt.numpy), requires_grad)


def _cast_to_integer(value, dt: _dtype.dtype) -> int:
    """A number (or one-element tensor) as C converts it to integer dtype `dt`: truncated,
    then wrapped into the dtype's range."""
    value = value.item() if isinstance(value, Tensor) else value
    return builtins.int(np.array(builtins.int(value)).astype(dt.numpy))


def _integer_spaced(start, end, steps: int, dt: _dtype.dtype) -> np.ndarray:
    """linspace for an integer dtype before truncation: the bounds converted to the dtype
    first, then a double step counted up from start (first half) and down from end."""
    lo, hi = (_cast_to_integer(v, dt) for v in (start, end))
    step = (hi - lo) / max(steps - 1, 1)
    idx = np.arange(steps)
    return np.where(idx < max(steps // 2, 1), lo + step * idx, hi - step * (steps - 1 - idx))


def _check_steps(steps) -> None:
    if isinstance(steps, bool) or not isinstance(steps, (int, np.integer)):
        raise TypeError(f"linspace(): argument 'steps' must be int, not {type(steps).__name__}")
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")


def _spaced(start, end, steps: int, dt: _dtype.dtype) -> np.ndarray:
    """torch's linspace values: the first half counted up from start, the second half
    down from end, each element rounded once (torch's kernel fuses multiply and add)."""
    _check_steps(steps)
    start, end = (v.item() if isinstance(v, Tensor) else v for v in (start, end))
    idx = np.arange(steps)
    first = idx < max(steps // 2, 1)
    down = steps - 1 - idx
    if not (dt.is_floating_point or dt.is_complex):
        return np.trunc(_integer_spaced(start, end, steps, dt)).astype(dt.numpy)
    f = dt.numpy.type
    lo, hi = f(start), f(end)
    step = (hi - lo) / f(steps - 1) if steps > 1 else f(0)
    if dt.itemsize <= 2:
        # float16/bfloat16 arithmetic rounds after every operation.
        up_vals = lo + (step * idx.astype(dt.numpy)).astype(dt.numpy)
        down_vals = hi - (step * down.astype(dt.numpy)).astype(dt.numpy)
        return np.where(first, up_vals, down_vals).astype(dt.numpy)
    if dt.is_complex:
        up_vals = lo + step * idx.astype(dt.numpy)
        return np.where(first, up_vals, hi - step * down.astype(dt.numpy))
    wide = np.longdouble if dt.itemsize == 8 else np.float64
    values = np.where(first, wide(lo) + wide(step) * idx, wide(hi) - wide(step) * down)
    return values.astype(dt.numpy)


@recorded("linspace", factory=True)
def linspace(start, end, steps: int, *, out=None, dtype=None, layout=None, device=None,
             requires_grad=False) -> Tensor:
    """`steps` evenly spaced values from start to end inclusive."""
    dt = dtype or _dtype.get_default_dtype()
    if on_meta(device):
        _check_steps(steps)
        return meta_result((steps,), dt, requires_grad)
    _dtype.check_limited(dt, "linspace", "linspace_cpu")
    return _finish(_spaced(start, end, steps, dt), requires_grad)


def logspace(start, end, steps: int, base: float = 10.0, *, out=None, dtype=None,
             layout=None, device=None, requires_grad=False) -> Tensor:
    """base ** linspace(start, end, steps)."""
    dt = dtype or _dtype.get_default_dtype()
    if on_meta(device):
        _check_steps(steps)
        return meta_result((steps,), dt, requires_grad)
    _dtype.check_limited(dt, "logspace", "logspace_cpu")
    if not (dt.is_floating_point or dt.is_complex):
        if steps == 1:             # torch fills base ** start, checked against the range
            value = float(base) ** float(start.item() if isinstance(start, Tensor) else start)
            info = np.iinfo(dt.numpy)
            if not info.min <= value <= info.max:
                c_type = "int" if dt is _dtype.int32 else f"{dt.numpy.name}_t"
                raise RuntimeError(f"value cannot be converted to type {c_type} without "
                                   f"overflow")
            return _finish(np.array([np.trunc(value)]).astype(dt.numpy), requires_grad)
        # exponents as an integer linspace's, in double
        exponents = _integer_spaced(start, end, steps, dt)
        return _finish(np.trunc(np.power(float(base), exponents)).astype(dt.numpy),
                       requires_grad)
    exponents = _spaced(start, end, steps, dt)
    return _finish(np.power(dt.numpy.type(base), exponents).astype(dt.numpy), requires_grad)


@recorded("eye", factory=True)
def eye(n: int, m: int | None = None, *, out=None, dtype=None, layout=None, device=None,
        requires_grad=False) -> Tensor:
    """2-D tensor with ones on the diagonal and zeros elsewhere, n rows and m (default n) columns.
    """
    dt = dtype or _dtype.get_default_dtype()
    if on_meta(device):
        return meta_result((n, n if m is None else m), dt, requires_grad)
    _dtype.check_limited(dt, "eye", "eye")
    return _finish(np.eye(n, n if m is None else m, dtype=dt.numpy), requires_grad)


def _triangle_indices(row: int, col: int, offset: int, dtype, upper: bool, device) -> Tensor:
    """2 x N (row, column) coordinates of a row x col matrix's lower or upper triangle."""
    name = "triu_indices" if upper else "tril_indices"
    for label, n in (("row", row), ("col", col)):
        if n < 0:
            raise RuntimeError(f"{label} must be non-negative, got{n}")
    if dtype not in (_dtype.int32, _dtype.int64):
        from .pointwise import scalar_type_name
        raise NotImplementedError(f'"{name}" not implemented for '
                                  f"'{scalar_type_name(dtype)}'")
    pick = np.triu_indices if upper else np.tril_indices
    return _placed(np.stack(pick(row, offset, col)).astype(dtype.numpy), device, False)


def tril_indices(row: int, col: int, offset: int = 0, *, dtype=_dtype.int64, device=None,
                 layout=None) -> Tensor:
    """2 x N tensor of the (row, column) coordinates of the lower triangle of a row x col matrix, on
    and below diagonal `offset`."""
    return _triangle_indices(row, col, offset, dtype, upper=False, device=device)


def triu_indices(row: int, col: int, offset: int = 0, *, dtype=_dtype.int64, device=None,
                 layout=None) -> Tensor:
    """2 x N tensor of the (row, column) coordinates of the upper triangle of a row x col matrix, on
    and above diagonal `offset`."""
    return _triangle_indices(row, col, offset, dtype, upper=True, device=device)


# ---------------------------------------------------------------- Tensor.new_*
# Same dtype and device as `self` unless dtype= / device= say otherwise.
def new_zeros(self: Tensor, *sizes, size=None, dtype=None, device=None, requires_grad=False,
              layout=None, pin_memory=False) -> Tensor:
    """Tensor of the given size filled with 0, with self's dtype unless given."""
    return zeros(*sizes, size=size, dtype=dtype or self.dtype,
                 device=self.device if device is None else device,
                 requires_grad=requires_grad)


def new_ones(self: Tensor, *sizes, size=None, dtype=None, device=None, requires_grad=False,
             layout=None, pin_memory=False) -> Tensor:
    """Tensor of the given size filled with 1, with self's dtype unless given."""
    return ones(*sizes, size=size, dtype=dtype or self.dtype,
                device=self.device if device is None else device, requires_grad=requires_grad)


def new_empty(self: Tensor, *sizes, size=None, dtype=None, device=None, requires_grad=False,
              layout=None, pin_memory=False) -> Tensor:
    """Uninitialised tensor of the given size, with self's dtype unless given."""
    return empty(*sizes, size=size, dtype=dtype or self.dtype,
                 device=self.device if device is None else device,
                 requires_grad=requires_grad)


def new_full(self: Tensor, size, fill_value, *, dtype=None, device=None, requires_grad=False,
             layout=None, pin_memory=False) -> Tensor:
    """Tensor of shape `size` filled with fill_value, with self's dtype unless given."""
    return full(size, fill_value, dtype=dtype or self.dtype,
                device=self.device if device is None else device, requires_grad=requires_grad)


def empty_strided(size, stride, *, dtype=None, layout=None, device=None,
                  requires_grad: bool = False, pin_memory: bool = False) -> Tensor:
    """Uninitialised memory seen with the given strides (a view of a fresh buffer)."""
    size, stride = tuple(size), tuple(stride)
    if on_meta(device):
        dt = (dtype or _dtype.get_default_dtype()).numpy
        return _finish(MetaArray(size, dt, tuple(s * dt.itemsize for s in stride)),
                       requires_grad)
    span = 1 + sum((n - 1) * s for n, s in zip(size, stride)) if all(size) else 0
    base = empty(span, dtype=dtype, device=device)
    return as_strided(base, size, stride).requires_grad_(requires_grad)


def new_empty_strided(self: Tensor, size, stride, *, dtype=None, layout=None, device=None,
                      requires_grad: bool = False, pin_memory: bool = False) -> Tensor:
    """Uninitialised memory seen with the given strides, in self's dtype by default."""
    size, stride = size_from_args((size,), "new_empty_strided"), tuple(stride)
    if len(size) != len(stride):
        raise RuntimeError(f"dimensionality of sizes ({len(size)}) must match "
                           f"dimensionality of strides ({len(stride)})")
    if any(s < 0 for s in stride):
        raise RuntimeError(f"Storage size calculation overflowed with sizes={list(size)} "
                           f"and strides={list(stride)}")
    return empty_strided(size, stride, dtype=dtype or self.dtype,
                         device=self.device if device is None else device,
                         requires_grad=requires_grad)
