"""Reductions: sum, mean, prod, var/std, max/min and their arg/a- forms, logsumexp, norm,
the cumulative ops, any/all and the nan-ignoring forms, plus the helpers every reduction
shares (dim handling, re-expanding a reduced gradient, taking values at indices).

Ops that return several tensors (max with a dim, ...) return the namedtuple types of
`return_types` (see _return_types.py).
"""
from __future__ import annotations

import builtins
import warnings

import numpy as np

from .. import _dtype
from .._dtype import refuse_limited
from .._tensor import Tensor
from ..autograd.function import Function
from ._nondifferentiable import nondifferentiable, run
from ._return_types import return_types
from .._recorded_call import replayed_call
from .indexing import index as _index
from .pointwise import to_float
from .pointwise.where import where
from .shape import _named, int_list_argument
from ..amp.policy import FP32, autocast_op

METHODS = ["sum", "mean", "sum_to_size", "prod", "var", "std", "max", "min", "amax", "amin",
           "aminmax", "argmax", "argmin", "logsumexp", "dist", "cumsum", "cumprod",
           "cummax", "cummin", "logcumsumexp", "any", "all", "count_nonzero", "nansum",
           "nanmean"]

INPLACE = ["cumsum", "cumprod"]

__all__ = ["sum", "mean", "sum_to_size", "prod", "var", "std", "var_mean", "std_mean", "max",
           "min", "amax", "amin", "aminmax", "argmax", "argmin", "logsumexp", "dist",
           "cumsum", "cumprod", "cummax", "cummin", "logcumsumexp", "any", "all",
           "count_nonzero", "nansum", "nanmean", "return_types"]


# ---------------------------------------------------------------- shared helpers
def reduce_dims(input: Tensor, dim) -> tuple | None:
    """Normalise `dim` (None, int, or a sequence) to a sorted tuple of axes, or None for all.

    A zero-dim tensor accepts dim 0 / -1 and always reduces its single element (None)."""
    if dim is None:
        return None
    dims = dim if isinstance(dim, (tuple, list)) else (dim,)
    if len(dims) == 0:
        return None
    seen = set()
    for d in dims:
        axis = input._wrap_dim(d)
        if axis in seen:
            raise RuntimeError(f"dim {axis} appears multiple times in the list of dims")
        seen.add(axis)
    return tuple(sorted(seen)) if input._data.ndim else None


def expand_reduced(grad: Tensor, in_shape: tuple, axes, keepdim: bool) -> Tensor:
    """Broadcast the gradient of a reduction back over the reduced axes."""
    if not keepdim and in_shape:
        axes = range(len(in_shape)) if axes is None else axes
        shape = list(grad.shape)
        for a in sorted(axes):
            shape.insert(a, 1)
        grad = grad.reshape(shape)
    return grad.expand(in_shape)


def _mask(condition: Tensor, like: Tensor) -> Tensor:
    """A boolean tensor as 0/1 in `like`'s dtype. Backward formulas build their masks with
    ops, never from NumPy arrays of the values, so that a compiled plan recomputes them at
    every call instead of keeping those of the call it traced."""
    return condition.to(like.dtype)


def _isnan(data: np.ndarray) -> np.ndarray:
    if data.dtype.kind in "biu":
        return np.zeros(data.shape, dtype=bool)
    return np.isnan(data)


def _accumulate_dtype(input: np.ndarray, dtype, kernel: str) -> np.dtype | None:
    """sum/prod of bool and integer tensors accumulate in int64, as in torch. A limited
    dtype= (uint16/32/64) is refused with torch's error naming the op's `kernel`."""
    if dtype is not None:
        if dtype.is_limited:
            raise _dtype.unsupported_kernel(kernel, dtype)
        return dtype.numpy
    if input.dtype.kind in "biu":
        return np.dtype(np.int64)
    return None


def _type_name(input: Tensor) -> str:
    """torch's short scalar-type name used in messages: Long, Int, Bool, Float..."""
    return input.dtype.scalar_name


def take_along(input: Tensor, index: np.ndarray, axis: int, keepdim: bool = True) -> Tensor:
    """input's values at `index` along `axis` (like torch.gather), differentiably: the
    gradient is scattered back to the chosen positions. `index` has input's ndim; with
    keepdim=False its (size 1) `axis` is dropped from the result. A zero-dim input gives
    its single value (any index)."""
    if input._data.ndim == 0:
        return _index(input.reshape(1), (np.zeros((), np.int64),))
    return _index(input, _along_key(index, axis, keepdim))


@replayed_call
def _along_key(index: np.ndarray, axis: int, keepdim: bool) -> tuple:
    """The advanced-indexing key that picks `index` along `axis` (see take_along)."""
    shape = index.shape
    key = [np.arange(n).reshape([n if d == i else 1 for d in range(len(shape))])
           for i, n in enumerate(shape)]
    key[axis] = index
    if not keepdim:
        key = [k.squeeze(axis) for k in key]
    return tuple(key)


def _flip(t: Tensor, axis: int) -> Tensor:
    return t[(slice(None),) * axis + (slice(None, None, -1),)]


def _reverse_cumsum(t: Tensor, axis: int) -> Tensor:
    """Sums from each position to the end along `axis` (the gradient of cumsum)."""
    return _flip(cumsum(_flip(t, axis), axis), axis) if t.ndim else t


def _check_nonempty(name: str, input: Tensor, axes, *, full_error=RuntimeError,
                    specify_hint: bool = True) -> None:
    """torch's refusals for reductions without an identity (max, argmax...) on empty input."""
    shape = input._data.shape
    if axes is None:
        if input._data.size == 0:
            hint = " Specify the reduction dim with the 'dim' argument." if specify_hint else ""
            raise full_error(f"{name}(): Expected reduction dim to be specified for "
                             f"input.numel() == 0.{hint}")
        return
    for a in axes:
        if shape and shape[a] == 0:
            raise IndexError(f"{name}(): Expected reduction dim {a} to have non-zero size.")


# ---------------------------------------------------------------- sum, mean, prod
class Sum(Function):
    backward_name = "SumBackward1"

    @staticmethod
    def forward(ctx, x, axes, keepdim, dtype):
        ctx.meta = (x.shape, axes, keepdim)
        _dtype.check_limited(x.dtype, "sum", "sum_cpu")
        acc = _accumulate_dtype(x, dtype, "sum_cpu")
        if x.dtype == _dtype.bfloat16.numpy or x.dtype == np.float16:
            return x.astype(np.float32).sum(axis=axes, keepdims=keepdim).astype(acc or x.dtype)
        return np.asarray(x.sum(axis=axes, keepdims=keepdim, dtype=acc))

    @staticmethod
    def backward(ctx, grad):
        shape, axes, keepdim = ctx.meta
        return expand_reduced(grad, shape, axes, keepdim), None, None, None


def sum(input: Tensor, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:
    """Sum of all elements, or over the dimension(s) `dim` (kept with size 1 when keepdim); integer
    and bool inputs sum to int64."""
    axes = reduce_dims(input, dim)
    out = Sum.apply(input, axes, keepdim, dtype)
    return _named(out, "SumBackward0") if axes is None and not keepdim else out


class Mean(Function):
    backward_name = "MeanBackward1"

    @staticmethod
    def forward(ctx, x, axes, keepdim, dtype):
        data = x if dtype is None else x.astype(dtype.numpy)
        ctx.meta = (x.shape, axes, keepdim)
        count = data.size if axes is None else int(np.prod([data.shape[a] for a in axes]))
        ctx.count = count
        if data.dtype == _dtype.bfloat16.numpy or data.dtype == np.float16:
            return data.astype(np.float32).mean(axis=axes, keepdims=keepdim).astype(data.dtype)
        with np.errstate(invalid="ignore", divide="ignore"):
            if count == 0:  # nan, without NumPy's "Mean of empty slice" warning
                return np.asarray(np.sum(data, axis=axes, keepdims=keepdim) / count)
            return np.asarray(data.mean(axis=axes, keepdims=keepdim))

    @staticmethod
    def backward(ctx, grad):
        shape, axes, keepdim = ctx.meta
        return expand_reduced(grad / ctx.count, shape, axes, keepdim), None, None, None


def mean(input: Tensor, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:
    """Mean of all elements, or over the dimension(s) `dim`; needs a floating or complex input (or
    `dtype`)."""
    result = input.dtype if dtype is None else dtype
    if not (result.is_floating_point or result.is_complex):
        which = "Input" if dtype is None else "Optional"
        raise RuntimeError(f"mean(): could not infer output dtype. {which} dtype must be either "
                           f"a floating point or complex dtype. Got: {result.scalar_name}")
    axes = reduce_dims(input, dim)
    out = Mean.apply(input, axes, keepdim, dtype)
    return _named(out, "MeanBackward0") if axes is None and not keepdim else out


def sum_to_size(input: Tensor, *sizes, size=None) -> Tensor:
    """Sum `input` down to `size` (the inverse of broadcasting `size` up to input's shape),
    given as ints, one sequence or size=."""
    size = int_list_argument("sum_to_size", "size", sizes, size)
    shape = input._data.shape
    if shape == size:
        # torch sums a 0-d tensor even to its own size (): a new tensor (bool becomes int64)
        return input if shape else sum(input)
    lead = len(shape) - len(size)
    if lead < 0 or builtins.any(s != 1 and s != shape[lead + i] for i, s in enumerate(size)):
        raise RuntimeError(f"size {{{list(size)}}} is not expandable to size {{{list(shape)}}}.")
    axes = tuple(range(lead)) + tuple(lead + i for i, s in enumerate(size)
                                      if s == 1 and shape[lead + i] != 1)
    out = sum(input, axes, keepdim=True) if axes else input
    return out.reshape(size) if out.shape != size else out


class Prod(Function):
    backward_name = "ProdBackward1"
    holomorphic = True

    @staticmethod
    def forward(ctx, x, axes, keepdim, dtype):
        ctx.save_for_backward(x)
        ctx.meta = (axes, keepdim)
        acc = _accumulate_dtype(x, dtype, "prod_out_cpu")
        return np.asarray(x.prod(axis=axes, keepdims=keepdim, dtype=acc))

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx._unpacked_saved
        axes, keepdim = ctx.meta
        if x.dtype != grad.dtype:
            x = x.to(grad.dtype)
        zero = x == 0
        zeros_in_slice = zero.sum(dim=axes, keepdim=True)
        # d prod / d x_i is the product of the other entries: prod / x_i when the slice has
        # no zero; at a slice's only zero, the product of the nonzero entries; else 0.
        ones_for_zeros = x * _mask(~zero, x) + _mask(zero, x)
        nonzero_product = Prod.apply(ones_for_zeros, axes, True, None)
        factor = _mask((zeros_in_slice == 0) & ~zero, x) / ones_for_zeros + \
            _mask(zero & (zeros_in_slice == 1), x)
        g = expand_reduced(grad, x._data.shape, axes, keepdim)
        return g * nonzero_product * factor, None, None, None


@autocast_op(FP32)
def prod(input: Tensor, dim: int | None = None, keepdim: bool = False, *, dtype=None) -> Tensor:
    """Product of all elements, or over the dimension `dim`."""
    if isinstance(dim, (tuple, list)):
        raise TypeError(f"prod() received an invalid combination of arguments - got (Tensor, "
                        f"{type(dim).__name__}), but expected an int dim")
    axes = None if dim is None else reduce_dims(input, dim)
    out = Prod.apply(input, axes, keepdim, dtype)
    return _named(out, "ProdBackward0") if dim is None else out


class Nansum(Function):
    backward_name = "NansumBackward0"

    @staticmethod
    def forward(ctx, x, axes, keepdim, dtype):
        ctx.save_for_backward(x)
        ctx.meta = (axes, keepdim)
        return np.asarray(np.nansum(x, axis=axes, keepdims=keepdim,
                                    dtype=_accumulate_dtype(x, dtype, "nansum_cpu")))

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx._unpacked_saved
        axes, keepdim = ctx.meta
        g = expand_reduced(grad, x._data.shape, axes, keepdim)
        return g * _mask(~x.isnan(), g), None, None, None


def nansum(input: Tensor, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:
    """sum that treats NaN as zero."""
    return Nansum.apply(input, reduce_dims(input, dim), keepdim, dtype)


def nanmean(input: Tensor, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:
    """Mean of the non-NaN entries: nansum divided by their count, as torch composes it."""
    if not (input.is_floating_point() or input.is_complex()):
        raise RuntimeError("nanmean(): expected input to have floating point or complex dtype "
                           f"but got {_type_name(input)}")
    count = (~input.isnan()).sum(dim=reduce_dims(input, dim), keepdim=keepdim)
    return nansum(input, dim, keepdim, dtype=dtype) / count


# ---------------------------------------------------------------- var, std
class Var(Function):
    """var (or std when take_sqrt): squared deviations summed, divided by N - correction."""
    backward_name = "VarBackward0"
    saves_outputs = True

    @staticmethod
    def forward(ctx, x, axes, correction, keepdim, take_sqrt):
        count = x.size if axes is None else int(np.prod([x.shape[a] for a in axes]))
        dof = builtins.max(count - correction, 0)
        if dof == 0:
            warnings.warn(f"{'std' if take_sqrt else 'var'}(): degrees of freedom is <= 0. "
                          "Correction should be strictly less than the reduction factor (input "
                          "numel divided by output numel).", UserWarning, stacklevel=4)
        ctx.save_for_backward(x)
        # The value divides by max(N - correction, 0), torch's gradient by N - correction.
        ctx.meta = (axes, keepdim, count - correction, take_sqrt)
        low = x.dtype in _dtype.LOW_PRECISION_NUMPY  # torch accumulates these in float32
        data = x.astype(np.float32) if low else x
        with np.errstate(invalid="ignore", divide="ignore"):
            dev = data - data.sum(axis=axes, keepdims=True) / count
            squares = (dev * dev.conj()).real if x.dtype.kind == "c" else dev * dev  # |dev|^2
            var = np.asarray(squares.sum(axis=axes, keepdims=keepdim) / dof, dtype=squares.dtype)
            result = np.sqrt(var) if take_sqrt else var
        return result.astype(x.dtype) if low else result

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx._unpacked_saved
        axes, keepdim, dof, take_sqrt = ctx.meta
        shape = x._data.shape
        dev = x - mean(x, axes, keepdim=True)
        g = expand_reduced(grad, shape, axes, keepdim)
        if not take_sqrt:
            return g * 2 * dev / dof, None, None, None, None
        # d std = d var / (2 std); torch gives 0 (not nan) where std == 0.
        std = expand_reduced(ctx.output(0), shape, axes, keepdim)
        zero = std == 0
        g = g / (std + _mask(zero, std)) * _mask(~zero, std)
        return g * dev / dof, None, None, None, None


def _var_args(input: Tensor, dim, unbiased, correction, name: str):
    """Sort out torch's two var/std signatures: (dim, unbiased, keepdim) and correction=."""
    if not (input.is_floating_point() or input.is_complex()):
        raise RuntimeError("std and var only support floating point and complex dtypes")
    if isinstance(dim, bool):
        dim, unbiased = None, dim
    if unbiased is not None and correction is not None:
        raise TypeError(f"{name}() received an invalid combination of arguments - got both "
                        "'unbiased' and 'correction'; pass only one of them")
    if correction is None:
        correction = 0 if unbiased is False else 1
    return reduce_dims(input, dim), correction


def var(input: Tensor, dim=None, unbiased: bool | None = None, keepdim: bool = False, *,
        correction=None) -> Tensor:
    """Variance over `dim` (all elements by default) with Bessel's correction (correction=1) unless
    correction / unbiased say otherwise."""
    axes, correction = _var_args(input, dim, unbiased, correction, "var")
    return Var.apply(input, axes, correction, keepdim, False)


def std(input: Tensor, dim=None, unbiased: bool | None = None, keepdim: bool = False, *,
        correction=None) -> Tensor:
    """Standard deviation over `dim` (all elements by default), with correction=1 unless told
    otherwise."""
    axes, correction = _var_args(input, dim, unbiased, correction, "std")
    return _named(Var.apply(input, axes, correction, keepdim, True), "StdBackward0")


def _with_mean(stat, input: Tensor, dim, unbiased, keepdim: bool, correction) -> tuple:
    """(stat, mean) over the same dims; `dim` may be the legacy positional `unbiased`."""
    if isinstance(dim, bool):
        dim, unbiased = None, dim
    return (stat(input, dim, unbiased, keepdim, correction=correction),
            mean(input, dim, keepdim))


def var_mean(input: Tensor, dim=None, unbiased: bool | None = None, keepdim: bool = False, *,
             correction=None) -> tuple:
    """(var, mean) over `dim`, computed together."""
    return _with_mean(var, input, dim, unbiased, keepdim, correction)


def std_mean(input: Tensor, dim=None, unbiased: bool | None = None, keepdim: bool = False, *,
             correction=None) -> tuple:
    """(std, mean) over `dim`, computed together."""
    return _with_mean(std, input, dim, unbiased, keepdim, correction)


# ---------------------------------------------------------------- max, min and friends
class Extremum(Function):
    """amax / amin / max() / min() / median(): a reduction whose result is one of the input
    values. The gradient is shared evenly among the entries equal to the result; with
    `nan_shared` (max(), min(), median()) a NaN result shares it among the NaN entries."""
    backward_name = "AmaxBackward0"
    saves_outputs = True
    saved_names = ("self",)

    @staticmethod
    def forward(ctx, x, fn, axes, keepdim, nan_shared):
        ctx.save_for_backward(x)
        ctx.meta = (axes, keepdim, nan_shared)
        return np.asarray(fn(x, axis=axes, keepdims=keepdim))

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx._unpacked_saved
        axes, keepdim, nan_shared = ctx.meta
        out = expand_reduced(ctx.output(0), x._data.shape, axes, keepdim)
        hit = x == out
        if nan_shared:
            hit = where(out.isnan(), x.isnan(), hit)
        g = expand_reduced(grad, x._data.shape, axes, keepdim)
        return g * _share(hit, axes, g), None, None, None, None


def _share(hit: Tensor, axes, like: Tensor) -> Tensor:
    """1/count at the entries `hit` (count: hits in their slice of `axes`), else 0, in
    `like`'s dtype: how a max, min or inf-norm shares its gradient among ties."""
    hits = _mask(hit, like)
    return hits / hits.sum(dim=axes, keepdim=True)


def amax(input: Tensor, dim=(), keepdim: bool = False) -> Tensor:
    """Maximum over the dimension(s) `dim` (all by default), without indices; ties share the
    gradient evenly."""
    refuse_limited(input._data, "max_values_cpu")
    axes = reduce_dims(input, dim)
    _check_nonempty("amax", input, axes)
    return Extremum.apply(input, np.amax, axes, keepdim, False)


def amin(input: Tensor, dim=(), keepdim: bool = False) -> Tensor:
    """Minimum over the dimension(s) `dim` (all by default), without indices; ties share the
    gradient evenly."""
    refuse_limited(input._data, "min_values_cpu")
    axes = reduce_dims(input, dim)
    _check_nonempty("amin", input, axes)
    return _named(Extremum.apply(input, np.amin, axes, keepdim, False), "AminBackward0")


def aminmax(input: Tensor, *, dim: int | None = None, keepdim: bool = False):
    """(min, max) as a named tuple, over all elements or over `dim`."""
    refuse_limited(input._data, "aminmax_cpu")
    axes = reduce_dims(input, dim)
    if axes is None and input._data.size == 0:
        raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as the "
                           "operation has no identity.")
    if axes is not None and input._data.shape[axes[0]] == 0:
        raise IndexError(f"aminmax: Expected reduction dim {axes[0]} to have non-zero size.")
    low = Extremum.apply(input, np.amin, axes, keepdim, False)
    high = Extremum.apply(input, np.amax, axes, keepdim, False)
    return return_types.aminmax(_named(low, "AminmaxBackward0"),
                                _named(high, "AminmaxBackward0"))


def _value_and_index(input: Tensor, dim: int, keepdim: bool, name: str, arg_fn,
                     result_type) -> tuple:
    """(values, indices) of a reduction over one dim that picks an entry (max, min,
    median...). `arg_fn(data, axis)` returns the chosen indices with `axis` kept (size 1)."""
    axis = input._wrap_dim(dim)
    data = input._data
    if data.ndim == 0:
        return result_type(_named(take_along(input, None, 0), name),
                           Tensor._wrap(np.zeros((), np.int64)))
    index, indices = _chosen(input, axis, keepdim, arg_fn)
    values = _named(take_along(input, index, axis, keepdim), name)
    return result_type(values, Tensor._wrap(indices))


@replayed_call
def _chosen(input: Tensor, axis: int, keepdim: bool, arg_fn) -> tuple:
    """The indices `arg_fn` picks along `axis`: kept as a size-1 axis (to gather the
    values), and as the op returns them."""
    index = arg_fn(input._data, axis)
    return index, index if keepdim else index.squeeze(axis)


def _extreme(input: Tensor, dim, keepdim: bool, name: str, value_fn, arg_fn):
    refuse_limited(input._data, f"{name}_all" if dim is None else f"{name}_cpu")
    if dim is None:
        _check_nonempty(name, input, None)
        return _named(Extremum.apply(input, value_fn, None, False, True),
                      name.capitalize() + "Backward1")
    _check_nonempty(name, input, (input._wrap_dim(dim),))
    return _value_and_index(input, dim, keepdim, name.capitalize() + "Backward0",
                            lambda data, axis: np.expand_dims(arg_fn(data, axis=axis), axis),
                            getattr(return_types, name))


def max(input: Tensor, dim=None, keepdim: bool = False, *, out=None):
    """max(input) -> value; max(input, dim) -> (values, indices); max(input, other) ->
    elementwise maximum."""
    if isinstance(dim, Tensor):
        from . import pointwise
        return pointwise.maximum(input, dim, out=out)
    if out is not None:
        raise NotImplementedError("ember's max() does not support the 'out' argument")
    return _extreme(input, dim, keepdim, "max", np.amax, np.argmax)


def min(input: Tensor, dim=None, keepdim: bool = False, *, out=None):
    """min(input) -> value; min(input, dim) -> (values, indices); min(input, other) ->
    elementwise minimum."""
    if isinstance(dim, Tensor):
        from . import pointwise
        return pointwise.minimum(input, dim, out=out)
    if out is not None:
        raise NotImplementedError("ember's min() does not support the 'out' argument")
    return _extreme(input, dim, keepdim, "min", np.amin, np.argmin)


def _arg(input: Tensor, dim, keepdim: bool, name: str, function) -> Tensor:
    refuse_limited(input._data, f"{name}_cpu")
    if dim is None:
        _check_nonempty(name, input, None, full_error=IndexError, specify_hint=False)
        return run(function, input, None, keepdim)
    axis = input._wrap_dim(dim)
    if input.ndim:
        _check_nonempty(name, input, (axis,))
    return run(function, input, axis, keepdim)


def _arg_compute(fn):
    """The index array of np.argmax or np.argmin over `axis` (all of a 0-d input: 0)."""
    def compute(x: Tensor, axis, keepdim: bool) -> np.ndarray:
        if x.ndim == 0 and axis is not None:
            return np.zeros((), np.int64)
        return np.asarray(fn(x._data, axis=axis, keepdims=keepdim))
    return compute


ArgMax = nondifferentiable("arg_max", _arg_compute(np.argmax))
ArgMin = nondifferentiable("arg_min", _arg_compute(np.argmin))


def argmax(input: Tensor, dim: int | None = None, keepdim: bool = False) -> Tensor:
    """Index of the first maximal value (of the flattened input when dim is None)."""
    return _arg(input, dim, keepdim, "argmax", ArgMax)


def argmin(input: Tensor, dim: int | None = None, keepdim: bool = False) -> Tensor:
    """Index of the first minimal value (of the flattened input when dim is None)."""
    return _arg(input, dim, keepdim, "argmin", ArgMin)


# ---------------------------------------------------------------- logsumexp, norm
class LogSumExp(Function):
    backward_name = "LogsumexpBackward0"
    saves_outputs = True
    holomorphic = True

    @staticmethod
    def forward(ctx, x, axes, keepdim):
        ctx.save_for_backward(x)
        ctx.meta = (axes, keepdim)
        data = to_float(x)
        out_dtype = data.dtype
        if out_dtype in _dtype.LOW_PRECISION_NUMPY:  # torch accumulates these in float32
            data = data.astype(np.float32)
        # Subtract the maximum so exp() cannot overflow; an infinite maximum is left alone.
        # Complex input: the maximum real part, so the imaginary part comes out in (-pi, pi].
        top = np.max(data.real, axis=axes, keepdims=True, initial=-np.inf)
        top = np.where(np.isfinite(top), top, 0).astype(data.dtype)
        with np.errstate(divide="ignore", invalid="ignore"):
            out = (np.log(np.exp(data - top).sum(axis=axes, keepdims=True)) + top).astype(out_dtype, copy=False)
        return out if keepdim else out.reshape(np.sum(out, axis=axes).shape)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx._unpacked_saved
        axes, keepdim = ctx.meta
        shape = x._data.shape
        out = expand_reduced(ctx.output(0), shape, axes, keepdim)
        return expand_reduced(grad, shape, axes, keepdim) * (x - out).exp(), None, None


def logsumexp(input: Tensor, dim, keepdim: bool = False) -> Tensor:
    """log(sum(exp(input))) over `dim`, computed stably by subtracting the maximum."""
    return LogSumExp.apply(input, reduce_dims(input, dim), keepdim)


class VectorNorm(Function):
    backward_name = "LinalgVectorNormBackward0"
    saves_outputs = True

    @staticmethod
    def forward(ctx, x, ord, axes, keepdim, dtype):
        data = x if dtype is None else x.astype(dtype.numpy)
        ctx.save_for_backward(x)
        ctx.meta = (ord, axes, keepdim)
        size = np.abs(data)
        out_dtype = size.dtype
        if out_dtype in _dtype.LOW_PRECISION_NUMPY:  # torch accumulates these in float32
            size = size.astype(np.float32)
        if ord == np.inf:
            out = np.amax(size, axis=axes, keepdims=keepdim)
        elif ord == -np.inf:
            out = np.amin(size, axis=axes, keepdims=keepdim)
        elif ord == 0:
            out = (size != 0).sum(axis=axes, keepdims=keepdim)
        elif ord == 1:
            out = size.sum(axis=axes, keepdims=keepdim)
        elif ord == 2:
            out = np.sqrt((size * size).sum(axis=axes, keepdims=keepdim))
        else:
            out = (size ** ord).sum(axis=axes, keepdims=keepdim) ** (1.0 / ord)
        return np.asarray(out).astype(out_dtype)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx._unpacked_saved
        ord, axes, keepdim = ctx.meta
        none = (None,) * 4
        if ord == 0:
            return (None,) + none
        if x.dtype != grad.dtype and not x.is_complex():
            x = x.to(grad.dtype)
        shape = x._data.shape
        g = expand_reduced(grad, shape, axes, keepdim)
        if ord == 1:
            return (g * x.sgn(),) + none
        norm = expand_reduced(ctx.output(0), shape, axes, keepdim)
        if ord in (np.inf, -np.inf):
            # Shared evenly among the entries whose size is the norm, with their sign.
            return (g * x.sgn() * _share(x.abs() == norm, axes, x),) + none
        # d/dx (sum |x|^p)^(1/p) = sgn(x) |x|^(p-1) / norm^(p-1); 0 where the norm is 0
        # (sgn(z) = z / |z| for complex z: torch's convention for a real-valued output).
        nonzero = norm != 0
        scale = g / (norm + _mask(~nonzero, norm)) ** (ord - 1) * _mask(nonzero, norm)
        if ord == 2:
            return (x * scale,) + none
        zero = x == 0
        size = x.abs() + _mask(zero, x)
        return (x.sgn() * size ** (ord - 1) * _mask(~zero, x) * scale,) + none


def _check_norm_input(input: Tensor, ord, axes) -> None:
    if not (input.is_floating_point() or input.is_complex()):
        raise RuntimeError("linalg.vector_norm: Expected a floating point or complex tensor as "
                           f"input. Got {_type_name(input)}")
    if ord in (np.inf, -np.inf) and input._data.size == 0:
        if axes is None:
            raise RuntimeError(f"linalg.vector_norm cannot compute the {ord} norm on an empty "
                               "tensor because the operation does not have an identity")
        for a in axes:
            if input._data.shape[a] == 0:
                raise RuntimeError(f"linalg.vector_norm cannot compute the {ord} norm on the "
                                   f"dimension {a}because this dimension is empty and the "
                                   "operation does not have an identity")


def dist(input: Tensor, other: Tensor, p: float = 2) -> Tensor:
    """The p-norm of input - other (broadcast together), over all entries."""
    difference = input - other
    if not (difference.is_floating_point() or difference.is_complex()):
        raise RuntimeError("norm(): input dtype should be either floating point or complex. "
                           f"Got {_type_name(difference)} instead.")
    axes = reduce_dims(difference, None)
    _check_norm_input(difference, p, axes)
    return _named(VectorNorm.apply(difference, float(p), axes, False, None), "DistBackward0")


# ---------------------------------------------------------------- cumulative ops
class Cumsum(Function):
    backward_name = "CumsumBackward0"

    @staticmethod
    def forward(ctx, x, axis, dtype):
        ctx.axis = axis
        if x.ndim == 0:
            return x.astype(_accumulate_dtype(x, dtype, "cumsum_out_cpu") or x.dtype)
        if dtype is None and x.dtype in _dtype.LOW_PRECISION_NUMPY:  # float32 running sum
            return np.cumsum(x.astype(np.float32), axis=axis).astype(x.dtype)
        return np.cumsum(x, axis=axis, dtype=_accumulate_dtype(x, dtype, "cumsum_out_cpu"))

    @staticmethod
    def backward(ctx, grad):
        return _reverse_cumsum(grad, ctx.axis), None, None


def cumsum(input: Tensor, dim: int, *, dtype=None) -> Tensor:
    """Cumulative sum along `dim`: out[i] = input[0] + ... + input[i]."""
    return Cumsum.apply(input, input._wrap_dim(dim), dtype)


class Cumprod(Function):
    backward_name = "CumprodBackward0"
    holomorphic = True
    saves_outputs = True

    @staticmethod
    def forward(ctx, x, axis, dtype):
        ctx.axis = axis
        ctx.save_for_backward(x)
        if x.ndim == 0:
            return x.astype(_accumulate_dtype(x, dtype, "cumprod_out_cpu") or x.dtype)
        return np.cumprod(x, axis=axis, dtype=_accumulate_dtype(x, dtype, "cumprod_out_cpu"))

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx._unpacked_saved
        axis = ctx.axis
        if x.ndim == 0:
            return grad, None, None
        if x.dtype != grad.dtype:
            x = x.to(grad.dtype)
        out = ctx.output(0)
        # d out_j / d x_i = out_j / x_i for i before the first zero of the slice; at the
        # first zero it is the product of the other entries up to j; after it, 0. (One
        # formula whether or not there are zeros: a compiled plan takes no branch on values.)
        zero = x == 0
        seen = zero.cumsum(axis)
        before = seen == 0
        first = zero & (seen == 1)
        safe_x = x * _mask(before, x) + _mask(~before, x)
        result = _reverse_cumsum(grad * out, axis) / safe_x * _mask(before, x)
        skip_first = cumprod(x * _mask(~first, x) + _mask(first, x), axis)
        at_first = _reverse_cumsum(grad * skip_first * _mask(seen >= 1, x), axis)
        return result + at_first * _mask(first, x), None, None


def cumprod(input: Tensor, dim: int, *, dtype=None) -> Tensor:
    """Cumulative product along `dim`: out[i] = input[0] * ... * input[i]."""
    return Cumprod.apply(input, input._wrap_dim(dim), dtype)


def _cumulative_extreme(input: Tensor, dim: int, name: str, ufunc):
    """cummax / cummin: running extreme and where it was attained. Like torch, an equal
    later entry takes over the index, and a NaN holds both from where it appears."""
    refuse_limited(input._data, f"{name}_cpu")
    axis = input._wrap_dim(dim)
    data = input._data
    result_type = getattr(return_types, name)
    backward_name = name.capitalize() + "Backward0"
    if data.ndim == 0:
        return result_type(_named(take_along(input, None, 0), backward_name),
                           Tensor._wrap(np.zeros((), np.int64)))
    index = _running_index(input, axis, ufunc)
    return result_type(_named(take_along(input, index, axis), backward_name),
                       Tensor._wrap(index))


@replayed_call
def _running_index(input: Tensor, axis: int, ufunc) -> np.ndarray:
    """Where the running extreme (ufunc: maximum or minimum) along `axis` was attained:
    the last equal entry, or the first NaN. A replayed call: compiled plans recompute it."""
    data = input._data
    running = ufunc.accumulate(data, axis=axis)
    attained = (data == running) | _isnan(data)
    positions = np.arange(data.shape[axis]).reshape([-1 if d == axis else 1
                                                     for d in range(data.ndim)])
    return np.maximum.accumulate(np.where(attained, positions, 0), axis=axis).astype(np.int64)


def cummax(input: Tensor, dim: int):
    """Running maximum along `dim` and the index where it was reached, as (values, indices)."""
    return _cumulative_extreme(input, dim, "cummax", np.maximum)


def cummin(input: Tensor, dim: int):
    """Running minimum along `dim` and the index where it was reached, as (values, indices)."""
    return _cumulative_extreme(input, dim, "cummin", np.minimum)


class LogCumSumExp(Function):
    backward_name = "LogcumsumexpBackward0"
    saves_outputs = True

    @staticmethod
    def forward(ctx, x, axis):
        ctx.save_for_backward(x)
        ctx.axis = axis
        return x.copy() if x.ndim == 0 else np.logaddexp.accumulate(x, axis=axis)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx._unpacked_saved
        axis = ctx.axis
        if x.ndim == 0:
            return grad, None
        out = ctx.output(0)
        # grad_i = sum_{j>=i} g_j exp(x_i - out_j), computed in log space separately for the
        # positive and negative g_j so that it stays finite (torch's formulation).
        lowest = float(np.finfo(grad._data.dtype).min)
        log_size = (grad.abs() + _mask(grad == 0, grad)).log()

        def part(mask):
            log_g = where(mask, log_size, lowest)
            tail = _flip(logcumsumexp(_flip(log_g - out, axis), axis), axis)
            return (tail + x).exp()
        return part(grad > 0) - part(grad < 0), None


def logcumsumexp(input: Tensor, dim: int) -> Tensor:
    """Cumulative log(sum(exp(input))) along `dim`, computed stably."""
    axis = input._wrap_dim(dim)
    if input._data.dtype.kind in "biu":
        raise NotImplementedError(f"\"logcumsumexp_out_cpu\" not implemented for "
                                  f"'{_type_name(input)}'")
    return LogCumSumExp.apply(input, axis)


# ---------------------------------------------------------------- logical reductions
def _logical(fn):
    """any or all over `axes` (None: every element)."""
    def compute(x: Tensor, axes, keepdim: bool) -> np.ndarray:
        out = np.asarray(fn(x._data, axis=axes, keepdims=keepdim))
        # torch keeps uint8 for uint8 input; every other dtype gives bool.
        return out.astype(np.uint8) if x._data.dtype == np.uint8 else out
    return compute


Any = nondifferentiable("any", _logical(np.any))
All = nondifferentiable("all", _logical(np.all))
CountNonzero = nondifferentiable("count_nonzero", lambda x, axes: np.asarray(
    np.count_nonzero(x._data, axis=axes), dtype=np.int64))


def any(input: Tensor, dim=None, keepdim: bool = False) -> Tensor:
    """Whether any element (over `dim`, or all of them) is non-zero, as a bool tensor."""
    return run(Any, input, reduce_dims(input, dim), keepdim)


def all(input: Tensor, dim=None, keepdim: bool = False) -> Tensor:
    """Whether every element (over `dim`, or all of them) is non-zero, as a bool tensor."""
    return run(All, input, reduce_dims(input, dim), keepdim)


def count_nonzero(input: Tensor, dim=None) -> Tensor:
    """Number of non-zero elements, over `dim` (a dimension or a tuple) or in total."""
    refuse_limited(input._data, "nonzero_count_cpu")
    return run(CountNonzero, input, reduce_dims(input, dim))
