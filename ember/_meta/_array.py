"""MetaArray: an array that has a shape, a dtype and strides but no elements.

A meta tensor stores a MetaArray where a CPU tensor stores its NumPy array. ember's ops
compute on NumPy arrays; a MetaArray answers the same calls (ufuncs, NumPy functions,
ndarray methods, indexing) with new MetaArrays whose metadata is what the real call would
give, so one op implementation serves both devices. Whatever it cannot answer without
data raises MetaUnsupported, which Function.apply turns into NotImplementedError naming
the op: never a result computed on made-up values.
"""
from __future__ import annotations

import math

import numpy as np
from numpy.lib.mixins import NDArrayOperatorsMixin

from ._layout import contiguous_strides, is_contiguous, layout_like, view_strides


class MetaUnsupported(NotImplementedError):
    """A NumPy operation that needs the elements, asked of a MetaArray."""


class _Flags:
    """The two ndarray.flags entries ember's code reads."""
    __slots__ = ("c_contiguous", "f_contiguous", "writeable")

    def __init__(self, array: MetaArray):
        self.c_contiguous = is_contiguous(array.shape, array.strides, array.itemsize)
        self.f_contiguous = is_contiguous(array.shape[::-1], array.strides[::-1],
                                          array.itemsize)
        self.writeable = True


def dtype_of(value):
    """What NumPy's type resolution should see for an operand: the dtype of an array, or the
    Python type of a Python number (a 'weak' scalar that adapts to the array's dtype)."""
    if isinstance(value, (MetaArray, np.ndarray, np.generic)):
        return value.dtype
    if isinstance(value, (bool, int, float, complex)):
        return value
    return np.asarray(value).dtype


def stand_in(value):
    """A one-element real array of an operand's dtype (Python numbers stay as they are): run a
    NumPy call on stand-ins to learn the dtype of its result, never its values."""
    if isinstance(value, MetaArray):
        return np.ones((), value.dtype)
    if isinstance(value, np.ndarray) and value.size > 1:
        return np.ones((), value.dtype)
    return value


def result_dtype(fn, *operands, **kwargs) -> np.dtype:
    """The dtype NumPy gives fn(*operands, **kwargs), found on one-element stand-ins."""
    with np.errstate(all="ignore"):
        return np.asarray(fn(*(stand_in(o) for o in operands), **kwargs)).dtype


def shape_of(value) -> tuple:
    return value.shape if isinstance(value, (MetaArray, np.ndarray)) else np.shape(value)


class MetaArray(NDArrayOperatorsMixin):
    """Shape, dtype and byte strides of an array without its data (see the module docstring).
    Operators come from NDArrayOperatorsMixin, which routes them through __array_ufunc__."""

    __slots__ = ("shape", "dtype", "strides")

    def __init__(self, shape, dtype, strides=None):
        self.shape = tuple(int(n) for n in shape)
        self.dtype = np.dtype(dtype)
        self.strides = contiguous_strides(self.shape, self.dtype.itemsize) if strides is None \
            else tuple(strides)

    # ---------------------------------------------------------------- metadata
    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    @property
    def itemsize(self) -> int:
        return self.dtype.itemsize

    @property
    def nbytes(self) -> int:
        return self.size * self.dtype.itemsize

    @property
    def flags(self) -> _Flags:
        return _Flags(self)

    @property
    def base(self):
        return None

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of unsized object")
        return self.shape[0]

    def __repr__(self) -> str:
        return f"MetaArray(shape={self.shape}, dtype={self.dtype})"

    # ---------------------------------------------------------------- no data to give
    def _no_data(self, *args, **kwargs):
        raise MetaUnsupported("a meta array has no data to read")

    __iter__ = __bool__ = __float__ = __int__ = __index__ = __complex__ = _no_data
    item = tolist = tobytes = _no_data

    def __array__(self, dtype=None, copy=None) -> np.ndarray:
        """np.asarray(meta array) gives a zero-dim object array holding it (a 'box'): ember's
        forwards call np.asarray on results to turn NumPy scalars into arrays, and
        Function.apply unpacks the box again (unbox). Any use of the box's values fails, as
        NumPy reaches this array's own refusing methods."""
        if dtype is not None and np.dtype(dtype) != object:
            self._no_data()
        box = np.empty((), dtype=object)
        box[()] = self
        return box

    @staticmethod
    def unbox(value):
        """The meta array inside a box made by __array__, else `value` itself."""
        if type(value) is np.ndarray and value.dtype == object and value.shape == () and \
                type(value[()]) is MetaArray:
            return value[()]
        return value


    # ---------------------------------------------------------------- new arrays
    def _like(self, shape=None, dtype=None) -> MetaArray:
        """A fresh contiguous array (what a copying NumPy call returns)."""
        return MetaArray(self.shape if shape is None else shape,
                         self.dtype if dtype is None else dtype)

    def _copy_keeping_layout(self, dtype=None) -> MetaArray:
        dt = np.dtype(self.dtype if dtype is None else dtype)
        return MetaArray(self.shape, dt, layout_like(self.shape, dt.itemsize, self.shape,
                                                     self.strides))

    def astype(self, dtype, order="K", casting="unsafe", subok=True, copy=True) -> MetaArray:
        return self._copy_keeping_layout(dtype)

    def copy(self, order="C") -> MetaArray:
        return self._like() if order == "C" else self._copy_keeping_layout()

    def fill(self, value) -> None:
        """Writes nothing: there is no data."""

    def __setitem__(self, key, value) -> None:
        target = self[key].shape
        try:
            np.broadcast_shapes(shape_of(value), target)
        except ValueError:
            raise ValueError(f"could not broadcast input array from shape {shape_of(value)} "
                             f"into shape {target}") from None

    # ---------------------------------------------------------------- views
    def _view(self, shape, strides) -> MetaArray:
        return MetaArray(shape, self.dtype, strides)

    def reshape(self, *shape, order="C", copy=None) -> MetaArray:
        if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
            shape = shape[0]
        shape = _infer_size(tuple(shape), self.size)
        strides = view_strides(self.shape, self.strides, shape, self.itemsize)
        if strides is not None and copy is not True:
            return self._view(shape, strides)
        if copy is False:
            raise ValueError("cannot reshape array without copying")
        return self._like(shape)

    def view(self, dtype=None, type=None) -> MetaArray:
        if dtype is None or np.dtype(dtype) == self.dtype:
            return self._view(self.shape, self.strides)
        dt = np.dtype(dtype)
        shape = self.shape[:-1] + (self.shape[-1] * self.itemsize // dt.itemsize,)
        return MetaArray(shape, dt, contiguous_strides(shape, dt.itemsize))

    def transpose(self, *axes) -> MetaArray:
        if len(axes) == 1 and isinstance(axes[0], (tuple, list, np.ndarray)):
            axes = tuple(axes[0])
        axes = tuple(range(self.ndim))[::-1] if not axes or axes[0] is None else \
            tuple(int(a) % max(self.ndim, 1) for a in axes)
        return self._view(tuple(self.shape[a] for a in axes),
                          tuple(self.strides[a] for a in axes))

    @property
    def T(self) -> MetaArray:
        return self.transpose()

    def swapaxes(self, a: int, b: int) -> MetaArray:
        axes = list(range(self.ndim))
        axes[a], axes[b] = axes[b], axes[a]
        return self.transpose(axes)

    def squeeze(self, axis=None) -> MetaArray:
        if axis is None:
            keep = [d for d in range(self.ndim) if self.shape[d] != 1]
        else:
            drop = {a % self.ndim for a in (axis if isinstance(axis, tuple) else (axis,))}
            for d in drop:
                if self.shape[d] != 1:
                    raise ValueError("cannot select an axis to squeeze out which has size not "
                                     "equal to one")
            keep = [d for d in range(self.ndim) if d not in drop]
        return self._view(tuple(self.shape[d] for d in keep), tuple(self.strides[d] for d in keep))

    def ravel(self, order="C") -> MetaArray:
        return self.reshape(-1)

    def flatten(self, order="C") -> MetaArray:
        return self._like((self.size,))

    def diagonal(self, offset=0, axis1=0, axis2=1) -> MetaArray:
        a1, a2 = axis1 % self.ndim, axis2 % self.ndim
        n1, n2 = self.shape[a1], self.shape[a2]
        length = max(0, min(n1, n2 - offset) if offset >= 0 else min(n1 + offset, n2))
        rest = [d for d in range(self.ndim) if d not in (a1, a2)]
        return self._view(tuple(self.shape[d] for d in rest) + (length,),
                          tuple(self.strides[d] for d in rest) +
                          (self.strides[a1] + self.strides[a2],))

    def __getitem__(self, key) -> MetaArray:
        from ._indexing import index_result
        return index_result(self, key)

    # ---------------------------------------------------------------- reductions
    def _reduce(self, ufunc, axis=None, dtype=None, out=None, keepdims=False, **kwargs):
        return self.__array_ufunc__(ufunc, "reduce", self, axis=axis, dtype=dtype, out=out,
                                    keepdims=keepdims, **kwargs)

    def sum(self, axis=None, dtype=None, out=None, keepdims=False, **kwargs):
        return self._reduce(np.add, axis, dtype, out, keepdims, **kwargs)

    def prod(self, axis=None, dtype=None, out=None, keepdims=False, **kwargs):
        return self._reduce(np.multiply, axis, dtype, out, keepdims, **kwargs)

    def max(self, axis=None, out=None, keepdims=False, **kwargs):
        return self._reduce(np.maximum, axis, None, out, keepdims, **kwargs)

    def min(self, axis=None, out=None, keepdims=False, **kwargs):
        return self._reduce(np.minimum, axis, None, out, keepdims, **kwargs)

    def any(self, axis=None, out=None, keepdims=False, **kwargs):
        return self._reduce(np.logical_or, axis, bool, out, keepdims)

    def all(self, axis=None, out=None, keepdims=False, **kwargs):
        return self._reduce(np.logical_and, axis, bool, out, keepdims)

    def _statistic(self, fn, axis, dtype, keepdims) -> MetaArray:
        dt = result_dtype(fn, np.ones(1, self.dtype), dtype=dtype)
        return self._like(reduced_shape(self.shape, axis, keepdims), dt)

    def mean(self, axis=None, dtype=None, out=None, keepdims=False, **kwargs):
        return self._statistic(np.mean, axis, dtype, keepdims)

    def var(self, axis=None, dtype=None, out=None, ddof=0, keepdims=False, **kwargs):
        return self._statistic(np.var, axis, dtype, keepdims)

    def std(self, axis=None, dtype=None, out=None, ddof=0, keepdims=False, **kwargs):
        return self._statistic(np.std, axis, dtype, keepdims)

    def argmax(self, axis=None, out=None, keepdims=False):
        return self._like(reduced_shape(self.shape, axis, keepdims), np.intp)

    argmin = argmax

    def cumsum(self, axis=None, dtype=None, out=None):
        return self._accumulate(np.add, axis, dtype)

    def cumprod(self, axis=None, dtype=None, out=None):
        return self._accumulate(np.multiply, axis, dtype)

    def _accumulate(self, ufunc, axis, dtype):
        flat = self if axis is not None else self.reshape(-1)
        dt = result_dtype(np.cumsum if ufunc is np.add else np.cumprod, np.ones(1, self.dtype),
                          dtype=dtype)
        return flat._like(dtype=dt)

    def clip(self, min=None, max=None, out=None, **kwargs):
        return np.clip(self, min, max, out=out, **kwargs)

    def conj(self):
        return np.conjugate(self)

    conjugate = conj

    @property
    def real(self) -> MetaArray:
        if self.dtype.kind != "c":
            return self
        dt = np.dtype(self.dtype.char.lower())
        return MetaArray(self.shape, dt, self.strides)

    @property
    def imag(self) -> MetaArray:
        if self.dtype.kind != "c":
            raise MetaUnsupported("imag of a real meta array")
        return self.real

    def dot(self, other, out=None):
        return np.dot(self, other)

    # ---------------------------------------------------------------- the NumPy protocols
    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        from ._ufuncs import ufunc_result
        return ufunc_result(ufunc, method, inputs, kwargs)

    def __array_function__(self, func, types, args, kwargs):
        from ._functions import HANDLERS
        handler = HANDLERS.get(func)
        if handler is None:
            raise MetaUnsupported(f"numpy.{func.__name__} on a meta array")
        return handler(*args, **kwargs)


def reduced_shape(shape: tuple, axis, keepdims: bool) -> tuple:
    """The shape of a reduction over `axis` (None: every axis; an int or a tuple)."""
    if axis is None:
        axes = set(range(len(shape)))
    else:
        axes = {a % max(len(shape), 1) for a in (axis if isinstance(axis, tuple) else (axis,))}
        for a in (axis if isinstance(axis, tuple) else (axis,)):
            if not -max(len(shape), 1) <= a < max(len(shape), 1):
                raise np.exceptions.AxisError(a, len(shape))
    if keepdims:
        return tuple(1 if d in axes else n for d, n in enumerate(shape))
    return tuple(n for d, n in enumerate(shape) if d not in axes)


def _infer_size(shape: tuple, numel: int) -> tuple:
    shape = tuple(int(n) for n in shape)
    if -1 in shape:
        known = math.prod(n for n in shape if n != -1)
        if known == 0 or numel % known:
            raise ValueError(f"cannot reshape array of size {numel} into shape {shape}")
        shape = tuple(numel // known if n == -1 else n for n in shape)
    if math.prod(shape) != numel:
        raise ValueError(f"cannot reshape array of size {numel} into shape {shape}")
    return shape


def as_storage(value):
    """An op's result as a tensor's storage: a MetaArray as it is (taken out of its box, see
    MetaArray.__array__), anything else as a NumPy array."""
    if type(value) is MetaArray:
        return value
    value = np.asarray(value)
    return MetaArray.unbox(value) if value.dtype == object else value
