"""NumPy functions on MetaArrays (the __array_function__ protocol): each handler returns what
the function would, as metadata. A function missing from HANDLERS raises MetaUnsupported,
and so do the ones whose result size depends on the values (nonzero, unique ...)."""
from __future__ import annotations

import math

import numpy as np

from ._array import MetaArray, MetaUnsupported, reduced_shape, result_dtype, shape_of
from ._layout import with_new_dims

HANDLERS: dict = {}


def handles(*functions):
    def register(handler):
        for f in functions:
            HANDLERS[f] = handler
        return handler
    return register


def _meta(x) -> MetaArray:
    """x as a MetaArray (a real operand only lends its shape and dtype)."""
    if isinstance(x, MetaArray):
        return x
    x = np.asarray(x)
    return MetaArray(x.shape, x.dtype)


def _as_method(name: str):
    def call(a, *args, **kwargs):
        return getattr(_meta(a), name)(*args, **kwargs)
    call.__name__ = name
    return call


for _name, _fns in {"sum": (np.sum,), "prod": (np.prod,), "mean": (np.mean,),
                    "max": (np.max, np.amax), "min": (np.min, np.amin), "any": (np.any,),
                    "all": (np.all,), "argmax": (np.argmax,), "argmin": (np.argmin,),
                    "std": (np.std,), "var": (np.var,), "cumsum": (np.cumsum,),
                    "cumprod": (np.cumprod,), "reshape": (np.reshape,),
                    "transpose": (np.transpose,), "swapaxes": (np.swapaxes,),
                    "squeeze": (np.squeeze,), "ravel": (np.ravel,),
                    "diagonal": (np.diagonal,), "astype": (np.astype,),
                    "copy": (np.copy,)}.items():
    handles(*_fns)(_as_method(_name))


@handles(np.shape)
def _shape(a):
    return shape_of(a)


@handles(np.ndim)
def _ndim(a):
    return len(shape_of(a))


@handles(np.size)
def _size(a, axis=None):
    return math.prod(shape_of(a)) if axis is None else shape_of(a)[axis]


@handles(np.result_type)
def _result_type(*operands):
    return result_dtype(np.result_type, *operands)


@handles(np.may_share_memory, np.shares_memory)
def _shares_memory(a, b, max_work=None):
    return a is b


@handles(np.copyto)
def _copyto(dst, src, casting="same_kind", where=True):
    if not isinstance(dst, MetaArray):
        raise MetaUnsupported("copying a meta array's data into memory")
    np.broadcast_shapes(shape_of(src), shape_of(dst), shape_of(where))


@handles(np.put_along_axis)
def _put_along_axis(arr, indices, values, axis):
    """Writes nothing: there is no data."""


@handles(np.ascontiguousarray)
def _ascontiguousarray(a, dtype=None):
    a = _meta(a)
    return MetaArray(a.shape, a.dtype if dtype is None else dtype)


@handles(np.empty_like, np.zeros_like, np.ones_like)
def _new_like(prototype, dtype=None, order="K", subok=True, shape=None, device=None):
    prototype = _meta(prototype)
    if shape is None and order == "K":
        return prototype.astype(prototype.dtype if dtype is None else dtype)
    return MetaArray(prototype.shape if shape is None else shape,
                     prototype.dtype if dtype is None else dtype)


@handles(np.full_like)
def _full_like(prototype, fill_value, dtype=None, order="K", subok=True, shape=None,
               device=None):
    return _new_like(prototype, dtype, order, subok, shape)


@handles(np.broadcast_to)
def _broadcast_to(array, shape, subok=False):
    array = _meta(array)
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    if np.broadcast_shapes(array.shape, shape) != shape:
        raise ValueError(f"operands could not be broadcast together with remapped shapes "
                         f"[original->remapped]: {array.shape} and requested shape {shape}")
    lead = len(shape) - array.ndim
    strides = (0,) * lead + tuple(0 if n == 1 and m != 1 else s for n, m, s in
                                  zip(array.shape, shape[lead:], array.strides))
    return MetaArray(shape, array.dtype, strides)


@handles(np.broadcast_arrays)
def _broadcast_arrays(*args, subok=False):
    shape = np.broadcast_shapes(*(shape_of(a) for a in args))
    return tuple(_broadcast_to(a, shape) for a in args)


@handles(np.expand_dims)
def _expand_dims(a, axis):
    a = _meta(a)
    axes = axis if isinstance(axis, tuple) else (axis,)
    ndim = a.ndim + len(axes)
    axes = sorted(x % ndim for x in axes)
    shape, strides = list(a.shape), list(a.strides)
    for x in axes:
        shape.insert(x, 1)
        strides.insert(x, 0)
    return MetaArray(shape, a.dtype, with_new_dims(shape, strides, axes, a.itemsize))


@handles(np.moveaxis)
def _moveaxis(a, source, destination):
    a = _meta(a)
    source = [s % a.ndim for s in (source if isinstance(source, (tuple, list)) else [source])]
    destination = [d % a.ndim for d in
                   (destination if isinstance(destination, (tuple, list)) else [destination])]
    order = [n for n in range(a.ndim) if n not in source]
    for dest, src in sorted(zip(destination, source)):
        order.insert(dest, src)
    return a.transpose(order)


@handles(np.concatenate)
def _concatenate(arrays, axis=0, out=None, dtype=None, casting="same_kind"):
    arrays = [_meta(a) for a in arrays]
    first = arrays[0]
    if axis is None:
        return MetaArray((sum(a.size for a in arrays),), result_dtype(np.concatenate, arrays))
    axis = axis % first.ndim
    for a in arrays:
        if a.ndim != first.ndim or any(n != m for d, (n, m) in
                                       enumerate(zip(a.shape, first.shape)) if d != axis):
            raise ValueError("all the input array dimensions except for the concatenation axis "
                             "must match exactly")
    shape = list(first.shape)
    shape[axis] = sum(a.shape[axis] for a in arrays)
    dt = dtype or np.result_type(*(a.dtype for a in arrays))
    return MetaArray(shape, dt)


@handles(np.stack)
def _stack(arrays, axis=0, out=None, dtype=None, casting="same_kind"):
    arrays = [_meta(a) for a in arrays]
    if len({a.shape for a in arrays}) > 1:
        raise ValueError("all input arrays must have the same shape")
    return _concatenate([_expand_dims(a, axis) for a in arrays], axis, dtype=dtype)


@handles(np.where)
def _where(condition, *values):
    if len(values) != 2:
        raise MetaUnsupported("numpy.where(condition) (its size depends on the data)")
    shape = np.broadcast_shapes(*(shape_of(v) for v in (condition,) + values))
    return MetaArray(shape, result_dtype(np.where, True, *values))


@handles(np.clip)
def _clip(a, a_min=None, a_max=None, out=None, **kwargs):
    bounds = [b for b in (a_min, a_max) if b is not None]
    shape = np.broadcast_shapes(*(shape_of(v) for v in [a] + bounds))
    result = MetaArray(shape, result_dtype(np.clip, a, a_min, a_max, **kwargs))
    return result if out is None else out


@handles(np.take_along_axis)
def _take_along_axis(arr, indices, axis):
    return MetaArray(shape_of(indices), _meta(arr).dtype)


@handles(np.flip, np.roll, np.sort, np.tril, np.triu, np.nan_to_num)
def _same_shape(a, *args, **kwargs):
    return _meta(a).copy()


@handles(np.argsort)
def _argsort(a, axis=-1, kind=None, order=None, **kwargs):
    return MetaArray(shape_of(a), np.intp)


@handles(np.pad)
def _pad(array, pad_width, mode="constant", **kwargs):
    array = _meta(array)
    widths = np.broadcast_to(np.asarray(pad_width, dtype=np.int64), (array.ndim, 2))
    return MetaArray(tuple(n + int(lo) + int(hi) for n, (lo, hi) in zip(array.shape, widths)),
                     array.dtype)


@handles(np.dot)
def _dot(a, b, out=None):
    if not shape_of(a) or not shape_of(b):
        return np.multiply(a, b)
    if len(shape_of(b)) <= 2:
        return np.matmul(a, b)
    a, b = _meta(a), _meta(b)
    shape = a.shape[:-1] + b.shape[:-2] + b.shape[-1:]
    if a.shape[-1] != b.shape[-2]:
        raise ValueError(f"shapes {a.shape} and {b.shape} not aligned")
    return MetaArray(shape, np.result_type(a.dtype, b.dtype))


@handles(np.tensordot)
def _tensordot(a, b, axes=2):
    a, b = _meta(a), _meta(b)
    if isinstance(axes, int):
        axes_a, axes_b = list(range(a.ndim - axes, a.ndim)), list(range(axes))
    else:
        axes_a, axes_b = ([x] if isinstance(x, int) else list(x) for x in axes)
    axes_a = [x % a.ndim for x in axes_a]
    axes_b = [x % b.ndim for x in axes_b]
    if [a.shape[x] for x in axes_a] != [b.shape[x] for x in axes_b]:
        raise ValueError("shape-mismatch for sum")
    shape = tuple(n for d, n in enumerate(a.shape) if d not in axes_a) + \
        tuple(n for d, n in enumerate(b.shape) if d not in axes_b)
    return MetaArray(shape, np.result_type(a.dtype, b.dtype))


@handles(np.einsum)
def _einsum(subscripts, *operands, out=None, dtype=None, optimize=False, **kwargs):
    """Explicit and implicit subscripts, without '...'."""
    if "..." in subscripts:
        raise MetaUnsupported("numpy.einsum with '...' on a meta array")
    inputs, _, output = subscripts.replace(" ", "").partition("->")
    terms = inputs.split(",")
    sizes = {}
    for term, op in zip(terms, operands):
        for letter, n in zip(term, shape_of(op)):
            if sizes.get(letter, n) not in (n, 1) and n != 1:
                raise ValueError(f"operands could not be broadcast together for dimension "
                                 f"'{letter}'")
            sizes[letter] = max(sizes.get(letter, 1), n)
    if "->" not in subscripts:
        output = "".join(sorted(c for c in sizes if inputs.count(c) == 1))
    dt = dtype or result_dtype(np.result_type, *operands)
    return MetaArray(tuple(sizes[c] for c in output), dt)


@handles(np.lib.stride_tricks.sliding_window_view)
def _sliding_window_view(x, window_shape, axis=None, *, subok=False, writeable=False):
    x = _meta(x)
    window = (window_shape,) if isinstance(window_shape, int) else tuple(window_shape)
    axes = tuple(range(x.ndim)) if axis is None else \
        ((axis,) if isinstance(axis, int) else tuple(axis))
    shape, strides = list(x.shape), list(x.strides)
    for ax, w in zip(axes, window):
        shape[ax] -= w - 1
        if shape[ax] < 0:
            raise ValueError("window shape cannot be larger than input array shape")
    return MetaArray(tuple(shape) + window, x.dtype,
                     tuple(strides) + tuple(x.strides[ax] for ax in axes))


@handles(np.atleast_1d, np.atleast_2d)
def _atleast(*arrays):
    results = []
    for a in arrays:
        a = _meta(a)
        results.append(a if a.ndim else a.reshape(1))
    return results[0] if len(results) == 1 else results


@handles(np.linalg.norm)
def _norm(x, ord=None, axis=None, keepdims=False):
    x = _meta(x)
    dt = result_dtype(np.linalg.norm, np.ones(1, x.dtype))
    return MetaArray(reduced_shape(x.shape, axis, keepdims), dt)

