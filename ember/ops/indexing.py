"""Indexing: `x[key]`, `x[key] = value` and the index ops (gather, scatter, index_*,
masked_*, take, put, nonzero).

Two primitives carry every gradient here: `Index` reads `x[key]` and `IndexPut` writes
values at `x[key]` into a copy of x, optionally accumulating repeated indices. Each is
the other's backward. The named ops translate their arguments into a NumPy key.
"""
from __future__ import annotations

import functools

import numpy as np

from .._dtype import refuse_limited
from .._cpu.embedding import add_rows
from .._recorded_call import replayed_call
from .._tensor import Tensor, _python_value
from ..autograd.function import Function
from .._modes import current as modes
from ..amp.policy import PROMOTE, autocast_op
from ._nondifferentiable import nondifferentiable, run
from ._value_checks import check_values

METHODS = ["gather", "scatter", "scatter_add", "scatter_reduce", "index_select", "index_add",
           "index_copy", "index_fill", "index_put", "masked_fill", "masked_select",
           "masked_scatter", "nonzero", "argwhere", "take", "take_along_dim", "put",
           "index_reduce", "fill_diagonal_"]
INPLACE = ["scatter", "scatter_add", "scatter_reduce", "index_add", "index_copy", "index_fill",
           "index_put", "masked_fill", "masked_scatter", "put", "index_reduce"]

__all__ = ["gather", "scatter", "scatter_add", "scatter_reduce", "index_select", "index_add",
           "index_copy", "index_fill", "index_put", "masked_fill", "masked_select",
           "masked_scatter", "nonzero", "argwhere", "take", "take_along_dim", "put",
           "index_reduce", "unravel_index"]


# ---------------------------------------------------------------- keys
def numpy_key(key):
    """Translate an index key: Tensors become arrays, everything else passes through."""
    if isinstance(key, tuple):
        return tuple(numpy_key(k) for k in key)
    if isinstance(key, Tensor):
        data = key._data
        if data.dtype.kind not in "biu":
            raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
        if data.ndim == 0 and data.dtype.kind in "iu":
            return int(data)          # as in torch, a 0-d integer tensor indexes like an int
        return data
    if isinstance(key, list) and any(isinstance(k, Tensor) for k in key):
        return [numpy_key(k) for k in key]
    return key


def is_basic(key) -> bool:
    """True when `key` selects a view (only ints, slices, None and Ellipsis)."""
    parts = key if isinstance(key, tuple) else (key,)
    return all(k is None or k is Ellipsis or isinstance(k, (slice, int, np.integer)) and
               not isinstance(k, bool) for k in parts)


def _is_mask(part) -> bool:
    return isinstance(part, np.ndarray) and part.dtype == np.bool_ and part.ndim > 0


def _check_key(key, shape) -> None:
    """Raise torch's IndexErrors for too many indices and mis-shaped boolean masks."""
    parts = key if isinstance(key, tuple) else (key,)
    used = [0 if p is None or p is Ellipsis or isinstance(p, bool) or
            (isinstance(p, np.ndarray) and p.dtype == np.bool_ and p.ndim == 0)
            else (p.ndim if _is_mask(p) else 1) for p in parts]
    if sum(used) > len(shape):
        raise IndexError(f"too many indices for tensor of dimension {len(shape)}")
    ellipsis = next((i for i, p in enumerate(parts) if p is Ellipsis), len(parts))
    for i, part in enumerate(parts):
        if not _is_mask(part):
            continue
        start = sum(used[:i]) if i < ellipsis else len(shape) - sum(used[i:])
        for j, size in enumerate(part.shape):
            if shape[start + j] != size:
                raise IndexError(f"The shape of the mask {list(part.shape)} at index {j} does "
                                 f"not match the shape of the indexed tensor {list(shape)} at "
                                 f"index {start + j}")


def _index_error(err: IndexError) -> IndexError:
    return IndexError(str(err).replace("axis", "dimension"))


@functools.lru_cache(maxsize=None)
def _node_class(cls: type, backward_name: str) -> type:
    """A subclass of the node class `cls` named `backward_name` (nothing else changes)."""
    return type(cls)(backward_name, (cls,), {"backward_name": backward_name,
                                             "__module__": cls.__module__,
                                             "__qualname__": cls.__qualname__})


def _named(out: Tensor, backward_name: str) -> Tensor:
    """Give a generic graph node torch's name for the op the user called (e.g. the
    SelectBackward0 of x.select(0, 1), which runs as an indexing node): its repr, name()
    and type(out.grad_fn).__name__ all read `backward_name`. The op was recorded (by
    the profiler, compiler or ONNX exporter) under its own class before the rename."""
    node = out._grad_fn
    if node is not None and type(node).backward_name != backward_name:
        node.__class__ = _node_class(type(node), backward_name)
    return out


# ---------------------------------------------------------------- primitives
class BasicIndex(Function):
    """`x[key]` with ints, slices, None and Ellipsis: a view."""
    backward_name = "SliceBackward0"
    is_view = True

    @staticmethod
    def forward(ctx, x, key):
        ctx.in_shape = x.shape
        ctx.key = key
        parts = key if isinstance(key, tuple) else (key,)
        if type(ctx).is_view and not any(k is Ellipsis for k in parts):
            key = parts + (Ellipsis,)  # 0-d: a view
        try:
            return x[key]
        except IndexError as err:
            raise _index_error(err) from None

    @staticmethod
    def backward(ctx, grad):
        return put_into_zeros(grad, ctx.key, ctx.in_shape), None


class Index(BasicIndex):
    """Indexing with integer arrays or masks: a copy, as in NumPy and torch."""
    backward_name = "IndexBackward0"
    is_view = False


def _row_index(key, out: np.ndarray, v):
    """The integer array of rows when out[key] += v adds whole rows (one value per row),
    else None."""
    if type(key) is tuple and len(key) == 1:
        key = key[0]
    if (type(key) is np.ndarray and key.dtype.kind in "iu" and out.ndim >= 1
            and isinstance(v, np.ndarray) and v.shape == key.shape + out.shape[1:]):
        return key
    return None


def _add_at(out: np.ndarray, key, v) -> None:
    """out[key] += v with repeated indices summed (np.add.at), whole rows faster."""
    rows = _row_index(key, out, v)
    if rows is None:
        np.add.at(out, key, v)
    else:
        add_rows(out, rows, v)


class IndexPut(Function):
    """A copy of x with `value` written (or, with accumulate, added) at `key`."""
    backward_name = "IndexPutBackward0"

    @staticmethod
    def forward(ctx, x, key, value, accumulate=False):
        ctx.key = key
        ctx.accumulate = accumulate
        out = x.copy()
        try:
            if not accumulate:
                out[key] = value
            elif is_basic(key):
                out[key] += value
            else:
                _add_at(out, key, value)
        except IndexError as err:
            raise _index_error(err) from None
        return out

    @staticmethod
    def backward(ctx, grad):
        needs = ctx.needs_input_grad
        need_x, need_v = needs[0], needs[2]
        grad_x = grad_v = None
        if need_x:
            grad_x = grad if ctx.accumulate else IndexPut.apply(grad, ctx.key, 0.0)
        if need_v:
            grad_v = index(grad, ctx.key)
        return (grad_x, None, grad_v) + (None,) * (len(needs) - 3)


class CopySlices(IndexPut):
    """Graph node of an in-place op on a view (see Tensor._inplace_on_view): the base's
    memory already holds `value` at `key`, so forward only hands the base's array on;
    backward is IndexPut's."""
    backward_name = "CopySlices"

    @staticmethod
    def forward(ctx, x, key, value):
        ctx.key = key
        ctx.accumulate = False
        return x


def index(x: Tensor, key) -> Tensor:
    """x[key] for an already translated NumPy key."""
    return BasicIndex.apply(x, key) if is_basic(key) else Index.apply(x, key)


def put_into_zeros(values: Tensor, key, shape) -> Tensor:
    """zeros(shape) with `values` added at `key` (repeated indices accumulate)."""
    zeros = Tensor._wrap(np.zeros(shape, dtype=values._data.dtype))
    return IndexPut.apply(zeros, key, values, True)


# ---------------------------------------------------------------- x[key], x[key] = v
def _split_ints(key):
    """torch applies integer indices before tensor indices (x[1, :, idx] is x[1][:, idx]),
    which places the result's dims differently from NumPy when both occur. Returns the
    (basic, advanced) pair of keys to apply one after the other, or None."""
    parts = key if isinstance(key, tuple) else (key,)
    arrays = [isinstance(p, (np.ndarray, list, bool)) for p in parts]
    if not any(arrays) or not any(isinstance(p, (int, np.integer)) and not isinstance(p, bool)
                                  for p in parts):
        return None
    basic, advanced = [], []
    for p, is_array in zip(parts, arrays):
        if is_array:
            basic += [slice(None)] * (p.ndim if _is_mask(p) else int(not isinstance(p, bool)))
            advanced.append(p)
        elif isinstance(p, (int, np.integer)):
            basic.append(p)
        else:
            basic.append(p)
            advanced.append(p if p is Ellipsis else slice(None))
    return tuple(basic), tuple(advanced)


def getitem(input: Tensor, key) -> Tensor:
    if type(key) is int and input._data.ndim:   # x[i], the commonest key (datasets)
        return _select(input, key)
    if input._data.ndim == 0 and not isinstance(key, tuple) and key is not None \
            and key is not Ellipsis and not isinstance(key, (Tensor, bool)):
        raise IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                         "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number")
    key = numpy_key(key)
    _check_key(key, input._data.shape)
    if any(_is_mask(part) for part in (key if isinstance(key, tuple) else (key,))):
        _python_value("__getitem__ with a boolean mask", "size", input)
    split = _split_ints(key)
    if split is not None:
        return index(index(input, split[0]), split[1])
    if not is_basic(key):
        return Index.apply(input, key)
    return _named(BasicIndex.apply(input, key), _basic_node_name(key, input._data.shape))


def _select(input: Tensor, i: int) -> Tensor:
    """x[i] for a Python int: a view. When there is nothing to record (no gradient wanted,
    no profiler or exporter listening) the view is made straight away, as
    Function.apply's no-grad path would make it: a Dataset indexes once per sample."""
    state = modes()
    if state.recorder is not None or (input._requires_grad and state.grad_enabled):
        return _named(BasicIndex.apply(input, i), "SelectBackward0")
    try:
        return input._make_view(input._data[i, ...])
    except IndexError as err:
        raise _index_error(err) from None


def _basic_node_name(key, shape) -> str:
    """torch's node for a basic key. torch applies a key one component at a time and the
    last step that did something names the node: an int selects, None unsqueezes, a slice
    slices. A lone slice always slices; inside a tuple a slice over a whole dim and ... do
    nothing, and a key with no step left is an alias of its input."""
    names = {int: "SelectBackward0", slice: "SliceBackward0", type(None): "UnsqueezeBackward0"}
    if not isinstance(key, tuple):
        return "AliasBackward0" if key is Ellipsis else names[_kind(key)]
    consuming = sum(p is not None and p is not Ellipsis for p in key)
    last, dim = "AliasBackward0", 0
    for part in key:
        if part is Ellipsis:
            dim += len(shape) - consuming
            continue
        if not (isinstance(part, slice) and part.indices(shape[dim]) == (0, shape[dim], 1)):
            last = names[_kind(part)]
        dim += part is not None
    return last


def _kind(part) -> type:
    return int if isinstance(part, (int, np.integer)) else type(part)


def _value_for(input: Tensor, key, value):
    """The assigned value as an operand of IndexPut: cast, leading 1s dropped, shape checked."""
    if not isinstance(value, Tensor):
        return value
    if value._data.dtype != input._data.dtype:
        value = value.to(input.dtype)
    try:
        target = np.empty(input._data.shape, dtype=np.bool_)[key].shape
    except IndexError as err:
        raise _index_error(err) from None
    extra = value._data.ndim - len(target)
    if extra > 0 and all(s == 1 for s in value._data.shape[:extra]):
        value = value.reshape(value._data.shape[extra:])
    try:
        fits = np.broadcast_shapes(value._data.shape, target) == tuple(target)
    except ValueError:
        fits = False
    if not fits:
        if is_basic(key):
            value.expand(target)  # raises torch's expand error
        raise RuntimeError(f"shape mismatch: value tensor of shape {list(value._data.shape)} "
                           f"cannot be broadcast to indexing result of shape {list(target)}")
    return value


def _check_same_dtype(input: Tensor, values) -> None:
    if isinstance(values, Tensor) and values.dtype is not input.dtype:
        names = [t.dtype.scalar_name for t in (input, values)]
        raise RuntimeError(f"Index put requires the source and destination dtypes match, got "
                           f"{names[0]} for the destination and {names[1]} for the source.")


def _recording(input: Tensor, value) -> bool:
    """Whether x[key] = value must go through an op: autograd records it, or a recorder
    (forward AD's tangents, the exporter) follows x to its new value."""
    state = modes()
    return state.recorder is not None or state.grad_enabled and (
        input._requires_grad or isinstance(value, Tensor) and value._requires_grad)


def setitem(input: Tensor, key, value) -> None:
    """x[key] = value. As in torch, a basic key writes through the view x[key] (so autograd
    records CopySlices), an advanced key is an index_put_ (IndexPutBackward0)."""
    key = numpy_key(key)
    _check_key(key, input._data.shape)
    split = _split_ints(key)
    if split is not None:
        return setitem(index(input, split[0]), split[1], value)
    if is_basic(key):
        view = BasicIndex.apply(input, key)
        value = _value_for(view, ..., value)
        if not isinstance(value, Tensor):
            value = Tensor._wrap(np.asarray(value, dtype=view._data.dtype))
        if _recording(view, value):
            view._inplace(lambda old, v: v, value)
            return
        input, key = view, ...
    else:
        _check_same_dtype(input, value)
    value = _value_for(input, key, value)
    if _recording(input, value):
        input._inplace(lambda x, v: IndexPut.apply(x, key, v), value)
        return
    input._check_inplace()
    try:
        input._data[key] = value._data if isinstance(value, Tensor) else value
    except IndexError as err:
        raise _index_error(err) from None
    input._bump_version()


# ---------------------------------------------------------------- index checks
def _index_array(index: Tensor, op: str, kinds: str = "iu") -> np.ndarray:
    data = index._data if isinstance(index, Tensor) else np.asarray(index)
    if data.dtype.kind not in kinds:
        raise RuntimeError(f"{op}(): Expected dtype int32/int64 for index")
    return data


def _check_bounds(idx: np.ndarray, size: int, dim: int, error=RuntimeError,
                  prefix: str = "", negative: bool = False) -> None:
    """Indices must lie in [0, size), or in [-size, size) when `negative` ones count from
    the end."""
    if idx.size:
        low = -size if negative else 0
        bad = idx.max() if idx.max() >= size else idx.min()
        if bad >= size or bad < low:
            raise error(f"{prefix}index {bad} is out of bounds for dimension {dim} with size "
                        f"{size}")


def _check_in_range(idx: np.ndarray, size: int) -> None:
    """index_select's and index_reduce's check: indices in [0, size)."""
    if idx.size and (idx.min() < 0 or idx.max() >= size):
        raise IndexError("index out of range in self")


def _dim_key(input: Tensor, dim: int, idx: np.ndarray) -> tuple:
    """The key selecting entries `idx` along `dim`: (:, ..., :, idx)."""
    return (slice(None),) * dim + (idx,)


def _vector_index(input: Tensor, dim: int, index: Tensor, op: str) -> tuple:
    """Wrapped dim and the 1-D index array of the index_* ops, with torch's checks."""
    dim = input._wrap_dim(dim)
    idx = index._data if isinstance(index, Tensor) else np.asarray(index)
    if idx.ndim > 1:
        raise IndexError(f"{op}(): Index is supposed to be a vector")
    if idx.dtype.kind not in "iu":
        raise RuntimeError(f"{op}(): Expected dtype int32 or int64 for index")
    # a 1-D index stays the tensor's own array, which compile's tracer can name
    return dim, idx if idx.ndim == 1 else idx.reshape(-1)


# ---------------------------------------------------------------- gather / scatter
def _scatter_key(input: Tensor, dim: int, index: Tensor, op: str, src=None) -> tuple:
    """Wrapped dim and the NumPy key addressing input[..., index[i][j], ...] elementwise."""
    idx = _index_array(index, op)
    dim = input._wrap_dim(dim)
    shape = input._data.shape
    if idx.ndim != len(shape) and not (idx.ndim <= 1 and len(shape) <= 1):
        raise RuntimeError("Index tensor must have the same number of dimensions as input tensor")
    idx = idx.reshape(-1) if len(shape) <= 1 else idx
    shape = shape if shape else (1,)
    for d in range(idx.ndim):
        if d != dim and idx.shape[d] > shape[d]:
            raise RuntimeError(f"Size does not match at dimension {d} expected index "
                               f"{list(idx.shape)} to be no larger than self {list(shape)} "
                               f"apart from dimension {dim}")
        if src is not None and src._data.ndim and idx.shape[d] > src._data.shape[d]:
            raise RuntimeError(f"Size does not match at dimension {d} expected index "
                               f"{list(idx.shape)} to be no larger than src "
                               f"{list(src._data.shape)}")
    check_values(_check_bounds, index, shape[dim], dim)
    grids = np.ogrid[tuple(slice(s) for s in idx.shape)] if idx.ndim > 1 else []
    key = tuple(idx if d == dim else grids[d] for d in range(idx.ndim))
    return dim, key, idx.shape


def _as_1d(input: Tensor) -> Tensor:
    return input.reshape(1) if input._data.ndim == 0 else input


def _src_part(src, shape) -> Tensor:
    """The leading block of `src` that scatter reads: src[:shape[0], :shape[1], ...]."""
    if not isinstance(src, Tensor):
        return src
    src = _as_1d(src)
    return index(src, tuple(slice(s) for s in shape))


def _restore(out: Tensor, input: Tensor) -> Tensor:
    return out.reshape(()) if input._data.ndim == 0 else out


def gather(input: Tensor, dim: int, index: Tensor, *, sparse_grad: bool = False) -> Tensor:
    """Values of input picked along `dim` by `index`: out[i][j] = input[index[i][j]][j] for dim=0;
    the output has index's shape."""
    refuse_limited(input._data, "scatter_gather_tensor_cpu")
    if isinstance(index, Tensor) and index._data.size == 0:
        # an empty index gathers nothing: torch checks its dtype and dim, not its shape
        _index_array(index, "gather")
        input._wrap_dim(dim)
        nothing = np.zeros(index._data.shape, dtype=np.intp)
        return _named(Index.apply(input.reshape(-1), nothing), "GatherBackward0")
    _, key, _ = _scatter_key(input, dim, index, "gather")
    out = Index.apply(_as_1d(input), key)
    return _named(out.reshape(index.shape) if out.shape != index.shape else out,
                  "GatherBackward0")


def _scatter(input: Tensor, dim, index, src, accumulate: bool, op: str, name: str) -> Tensor:
    src_t = src if isinstance(src, Tensor) else None
    _, key, shape = _scatter_key(input, dim, index, op, src_t)
    value = _src_part(src, shape)
    if isinstance(value, Tensor) and value.dtype is not input.dtype:
        raise RuntimeError(f"{op}(): Expected self.dtype to be equal to src.dtype")
    out = IndexPut.apply(_as_1d(input), key, value, accumulate)
    return _named(_restore(out, input), name)


def scatter(input: Tensor, dim: int, index: Tensor, src=None, *, value=None,
            reduce: str | None = None) -> Tensor:
    """Copy of input with values from `src` (or the scalar `value`) written along `dim` at the
    positions in `index`: the inverse of gather; `reduce` may add or multiply instead."""
    refuse_limited(input._data, "scatter_gather_tensor_cpu")
    if src is None:
        src = value
    if reduce is not None:
        if reduce not in ("add", "multiply"):
            raise RuntimeError("reduce argument must be either add or multiply.")
        if isinstance(src, Tensor):
            import warnings
            warnings.warn("The reduce argument of torch.scatter with Tensor src is deprecated and "
                          "will be removed in a future PyTorch release. Use torch.scatter_reduce "
                          "instead for more reduction options.", UserWarning, stacklevel=2)
        if modes().grad_enabled and (input.requires_grad or
                                   isinstance(src, Tensor) and src.requires_grad):
            raise RuntimeError("derivative for aten::scatter is not implemented")
        _, key, shape = _scatter_key(input, dim, index, "scatter")
        out = _as_1d(input)._data.copy()
        v = _src_part(src, shape)
        ufunc = np.add if reduce == "add" else np.multiply
        ufunc.at(out, key, v._data if isinstance(v, Tensor) else v)
        return Tensor._wrap(out.reshape(input._data.shape))
    name = "ScatterBackward0" if isinstance(src, Tensor) else "ScatterBackward1"
    return _scatter(input, dim, index, src, False, "scatter", name)


def scatter_add(input: Tensor, dim: int, index: Tensor, src: Tensor) -> Tensor:
    """Copy of input with src's values added along `dim` at the positions in `index` (repeated
    indices accumulate)."""
    return _scatter(input, dim, index, src, True, "scatter_add", "ScatterAddBackward0")


_REDUCE_UFUNCS = {"sum": np.add, "mean": np.add, "prod": np.multiply, "amax": np.maximum,
                  "amin": np.minimum}


def _identity(reduce: str, dtype: np.dtype):
    if reduce in ("sum", "mean"):
        return 0
    if reduce == "prod":
        return 1
    if dtype.kind == "b":
        return reduce == "amin"   # False is the identity of max, True of min
    big = np.inf if dtype.kind == "f" else np.iinfo(dtype).max
    return -big if reduce == "amax" else big


class ScatterReduce(Function):
    """scatter_reduce / index_reduce. The masks its backward needs (which factors are zero,
    which entries tie for the max, how many values each position averages) depend on the
    values, so forward computes them with the result and keeps them on the node: a compiled
    plan then finds each call's own masks there, never the traced call's."""
    backward_name = "ScatterReduceBackward0"

    @staticmethod
    def forward(ctx, x, key, src, reduce, include_self):
        out = x.copy()
        counts = np.zeros(x.shape, dtype=np.int64)
        np.add.at(counts, key, 1)
        hit = counts > 0
        if not include_self:
            out[hit] = _identity(reduce, x.dtype)
        _REDUCE_UFUNCS[reduce].at(out, key, src)
        counts += int(include_self)
        if reduce == "mean":
            divisor = np.maximum(counts, 1).astype(x.dtype)
            out = out / divisor if x.dtype.kind == "f" else out // divisor
            out = out.astype(x.dtype)
        ctx.key, ctx.reduce, ctx.include_self = key, reduce, include_self
        ctx.save_for_backward(x, src)
        if any(getattr(ctx, "needs_input_grad", ())):
            self_mask = ~hit if not include_self else np.ones(x.shape, dtype=np.bool_)
            ctx.masks = (self_mask.astype(x.dtype),) + _gradient_masks(
                x, key, src, out, counts, self_mask, reduce)
        return out

    @staticmethod
    def backward(ctx, grad):
        x, src = ctx._unpacked_saved
        key, reduce = ctx.key, ctx.reduce
        self_mask, *masks = (Tensor._wrap(m) for m in ctx.masks)
        if reduce in ("sum", "mean"):
            if reduce == "mean":
                grad = grad / masks[0]
            return grad * self_mask, None, Index.apply(grad, key), None, None
        if reduce == "prod":
            # Each factor's gradient is the product of the others: out / factor without
            # zeros; with one zero, the zero's is the product of the rest (the others get
            # 0); with two or more, every gradient is 0. In ops: it differentiates again.
            x_zero, src_zero, x_lone, x_free, src_lone, src_free = masks
            x_nz, src_nz = x + x_zero, src + src_zero
            g = grad * ScatterReduce.apply(x_nz, key, src_nz, "prod", ctx.include_self)
            return (g * (x_lone + x_free / x_nz) * self_mask, None,
                    Index.apply(g, key) * (src_lone + src_free / src_nz), None, None)
        # amax / amin: the gradient is shared evenly between all elements equal to the result.
        ties, chosen_self, chosen_src = masks
        share = grad / ties
        return share * chosen_self, None, Index.apply(share, key) * chosen_src, None, None


def _gradient_masks(x, key, src, out, counts, self_mask, reduce: str) -> tuple:
    """The value-dependent arrays ScatterReduce's backward reads, in x's dtype: mean's
    divisors; prod's zero factors, and the factors that are a slice's only zero (lone) or
    in a slice without zeros (free); amax/amin's tie counts and chosen entries."""
    dt = x.dtype
    if reduce == "mean":
        return (np.maximum(counts, 1).astype(dt),)
    if reduce == "prod":
        x_zero, src_zero = (x == 0) & self_mask, src == 0
        zeros = x_zero.astype(np.int64)     # zero factors per output position
        np.add.at(zeros, key, src_zero)
        return ((x == 0).astype(dt), src_zero.astype(dt),
                (x_zero & (zeros == 1)).astype(dt), (~x_zero & (zeros == 0)).astype(dt),
                (src_zero & (zeros[key] == 1)).astype(dt),
                (~src_zero & (zeros[key] == 0)).astype(dt))
    if reduce in ("amax", "amin"):
        chosen_self = (x == out) & self_mask
        chosen_src = src == out[key]
        ties = chosen_self.astype(dt)
        np.add.at(ties, key, chosen_src)
        return np.maximum(ties, 1), chosen_self.astype(dt), chosen_src.astype(dt)
    return ()


def scatter_reduce(input: Tensor, dim: int, index: Tensor, src: Tensor, reduce: str, *,
                   include_self: bool = True) -> Tensor:
    """Copy of input with src's values combined along `dim` at `index` by `reduce`: 'sum', 'prod',
    'mean', 'amax' or 'amin'; include_self=False leaves input's values out."""
    if reduce not in _REDUCE_UFUNCS:
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got "
                           f"{reduce}")
    _, key, shape = _scatter_key(input, dim, index, "scatter_reduce", src)
    out = ScatterReduce.apply(_as_1d(input), key, _src_part(src, shape), reduce, include_self)
    return _restore(out, input)


# ---------------------------------------------------------------- index_* ops
def index_select(input: Tensor, dim: int, index: Tensor) -> Tensor:
    """The entries of input at the positions in the 1-D `index` along `dim` (a copy)."""
    refuse_limited(input._data, "index_select")
    dim, idx = _vector_index(input, dim, index, "index_select")
    x = _as_1d(input)
    check_values(_check_in_range, index, x._data.shape[dim])
    out = Index.apply(x, _dim_key(x, dim, idx))
    return _named(_restore(out, input) if idx.size == 1 else out, "IndexSelectBackward0")


def _index_source(input: Tensor, dim: int, idx: np.ndarray, source, op: str, sep: str):
    """Check an index_add/index_copy source against the index (torch's messages)."""
    x = _as_1d(input)
    source = _as_1d(source)
    if source._data.shape[dim] != idx.size:
        error = RuntimeError if op == "index_add_" else IndexError
        raise error(f"{op}(): Number of indices ({idx.size}) should be equal to "
                    f"source.size(dim){sep} ({source._data.shape[dim]})" +
                    (f", for dim: {dim}" if op == "index_add_" else ""))
    return x, source


def index_add(input: Tensor, dim: int, index: Tensor, source: Tensor, *,
              alpha=1) -> Tensor:
    """Copy of input with alpha * source added at the positions `index` along `dim`."""
    refuse_limited(input._data, "index_add_")
    dim, idx = _vector_index(input, dim, index, "index_add")
    x, source = _index_source(input, dim, idx, source, "index_add_", ":")
    check_values(_check_bounds, index, x._data.shape[dim], dim)
    if alpha != 1:
        source = source * alpha
    out = IndexPut.apply(x, _dim_key(x, dim, idx), source, True)
    return _named(_restore(out, input), "IndexAddBackward0")


@autocast_op(PROMOTE)
def index_copy(input: Tensor, dim: int, index: Tensor, source: Tensor) -> Tensor:
    """Copy of input with source's slices written at the positions `index` along `dim`."""
    refuse_limited(input._data, "index_copy_cpu")
    dim, idx = _vector_index(input, dim, index, "index_copy")
    x, source = _index_source(input, dim, idx, source, "index_copy_", "")
    check_values(_check_bounds, index, x._data.shape[dim], dim, IndexError, "index_copy_(): ")
    out = IndexPut.apply(x, _dim_key(x, dim, idx), source, False)
    return _named(_restore(out, input), "IndexCopyBackward0")


def _fill_value(value, op: str):
    if isinstance(value, Tensor) and value._data.ndim != 0:
        raise RuntimeError(f"{op} only supports a 0-dimensional value tensor, but got tensor "
                           f"with {value._data.ndim} dimension(s).")
    return value


def index_fill(input: Tensor, dim: int, index: Tensor, value) -> Tensor:
    """Copy of input with the slices at positions `index` along `dim` set to `value`."""
    dim, idx = _vector_index(input, dim, index, "index_fill")
    x = _as_1d(input)
    size = x._data.shape[dim]
    check_values(_check_bounds, index, size, dim, IndexError, "", True)
    value = _fill_value(value, "index_fill_")
    # A repeated index fills its slice once: the value's gradient counts each slice once.
    distinct = _distinct(index, size) if isinstance(index, Tensor) else np.unique(idx % size)
    out = IndexPut.apply(x, _dim_key(x, dim, distinct), value, False)
    return _named(_restore(out, input), "IndexFillBackward0")


@replayed_call
def _distinct(index: Tensor, size: int) -> np.ndarray:
    """The index's distinct positions in a dim of `size` (a negative index counts from the
    end), sorted; a replayed call, so that a compiled plan recomputes them from each
    call's index."""
    return np.unique(index._data.reshape(-1) % size)


def index_put(input: Tensor, indices, values: Tensor, accumulate: bool = False) -> Tensor:
    """Copy of input with `values` written at input[indices] (a tuple of index tensors);
    accumulate=True adds them instead."""
    refuse_limited(input._data, "index_put")
    _check_same_dtype(input, values)
    key = numpy_key(tuple(indices))
    _check_key(key, input._data.shape)
    return IndexPut.apply(input, key, _value_for(input, key, values), bool(accumulate))


_INDEX_REDUCTIONS = ("prod", "mean", "amax", "amin")


def index_reduce(input: Tensor, dim: int, index: Tensor, source: Tensor, reduce: str, *,
                 include_self: bool = True) -> Tensor:
    """Reduce the slices source[..., i, ...] into input[..., index[i], ...] (along dim)."""
    import warnings
    warnings.warn("index_reduce() is in beta and the API may change at any time.",
                  UserWarning, stacklevel=2)
    if reduce not in _INDEX_REDUCTIONS:
        raise RuntimeError(f"index_reduce(): Expected reduce to be one of prod, mean, amax or "
                           f"amin but got {reduce}.")
    idx = index._data
    if idx.ndim > 1:
        raise IndexError(f"index_reduce_(): Index is supposed to be a vector, but got dim: "
                         f"{idx.ndim} with type: {index.dtype.scalar_name} and size: "
                         f"{list(idx.shape)}")
    if idx.dtype.kind not in "iu":
        raise RuntimeError(f"index_reduce_(): Expected dtype int32/int64 for index but got: "
                           f"{index.dtype.scalar_name}")
    if source.dtype is not input.dtype:
        raise RuntimeError(f"index_reduce_(): self ({input.dtype.scalar_name}) and source "
                           f"({source.dtype.scalar_name}) must have the same scalar type")
    dim = input._wrap_dim(dim)
    x, src = _as_1d(input), _as_1d(source)
    if x._data.ndim != src._data.ndim or any(
            a != b for d, (a, b) in enumerate(zip(x._data.shape, src._data.shape)) if d != dim):
        raise RuntimeError(f"source tensor shape must match self tensor shape, excluding the "
                           f"specified dimension. Got self.shape = {list(input._data.shape)} "
                           f"source.shape = {list(source._data.shape)}")
    idx = idx.reshape(-1)
    if src._data.shape[dim] != idx.size:
        raise RuntimeError(f"index_reduce_(): Number of indices ({idx.size}) should be equal to "
                           f"source.size(dim): ({src._data.shape[dim]}), for dim: {dim}")
    check_values(_check_in_range, index, x._data.shape[dim])
    out = ScatterReduce.apply(x, _dim_key(x, dim, idx), src, reduce, include_self)
    return _named(_restore(out, input), "IndexReduceBackward0")


def fill_diagonal_(self: Tensor, fill_value, wrap: bool = False) -> Tensor:
    """Write fill_value on the main diagonal in place; `wrap` restarts it in tall matrices
    every columns + 1 rows. More than 2 dims: the entries (i, i, ..., i)."""
    shape = self._data.shape
    if len(shape) < 2:
        raise RuntimeError("dimensions must larger than 1")
    if modes().grad_enabled and self._requires_grad and self._grad_fn is None:
        # torch writes through a diagonal view, hence its words for views
        raise RuntimeError("a view of a leaf Variable that requires grad is being used in an "
                           "in-place operation.")
    if len(shape) > 2:
        if len(set(shape)) > 1:
            raise RuntimeError("all dimensions of input must be of equal length")
        key = (np.arange(shape[0]),) * len(shape)
    else:
        rows, cols = shape
        end = rows * cols if wrap and rows > cols else min(rows, cols) * cols
        key = np.divmod(np.arange(0, end, cols + 1), max(cols, 1))
    return self._inplace(lambda x: _named(IndexPut.apply(x, key, fill_value), "CopySlices"))


def unravel_index(indices: Tensor, shape) -> tuple:
    """The coordinates in a tensor of `shape` of each flat (row-major) index, one tensor per
    dim. Like torch, indices are taken modulo the element count (-1 is the last element)."""
    if not isinstance(indices, Tensor) or indices._data.dtype.kind not in "iu":
        kind = indices.dtype if isinstance(indices, Tensor) else type(indices).__name__
        raise TypeError(f"expected 'indices' to be integer dtype, but got {kind}")
    shape = (shape,) if isinstance(shape, int) else tuple(int(s) for s in shape)
    if any(s < 0 for s in shape):
        raise ValueError(f"'shape' cannot have negative values, but got {shape}")
    flat = indices._data.astype(np.int64)
    coords = []
    for size in reversed(shape):
        flat, coordinate = np.divmod(flat, max(size, 1))
        coords.append(Tensor._wrap(coordinate))
    return tuple(reversed(coords))


# ---------------------------------------------------------------- masked ops
def _check_mask(mask: Tensor, op: str) -> None:
    if mask._data.dtype != np.bool_:
        raise RuntimeError(f"{op} only supports boolean masks, but got mask with dtype "
                           f"{mask.dtype.name}")


def _broadcast_with_mask(input: Tensor, mask: Tensor, op: str):
    """input and the mask's array broadcast to one shape. Both through `expand`, an op:
    a compiled call then replays the mask of each call, not the one it was traced with."""
    _check_mask(mask, op)
    shape = np.broadcast_shapes(input._data.shape, mask._data.shape)
    x = input if input._data.shape == shape else input.expand(shape)
    m = mask if mask._data.shape == shape else mask.expand(shape)
    return x, m._data


def masked_fill(input: Tensor, mask: Tensor, value) -> Tensor:
    """Copy of input with `value` wherever the bool mask (broadcast to input) is True."""
    refuse_limited(input._data, "masked_fill")
    x, m = _broadcast_with_mask(input, mask, "masked_fill_")
    value = _fill_value(value, "masked_fill_")
    if isinstance(value, Tensor) and value.dtype is not input.dtype:
        value = value.to(input.dtype)
    return _named(IndexPut.apply(x, m, value, False), "MaskedFillBackward0")


def masked_select(input: Tensor, mask: Tensor) -> Tensor:
    """1-D tensor of the elements of input where the bool mask is True."""
    refuse_limited(input._data, "masked_select")
    x, m = _broadcast_with_mask(input, mask, "masked_select:")
    _python_value("masked_select", "size", mask)
    return _named(Index.apply(x, m), "MaskedSelectBackward0")


def masked_scatter(input: Tensor, mask: Tensor, source: Tensor) -> Tensor:
    """Copy of input with the positions where mask is True filled, in order, from the elements of
    `source`."""
    refuse_limited(input._data, "masked_scatter")
    x, m = _broadcast_with_mask(input, mask, "masked_scatter_")
    _python_value("masked_scatter", "number", mask)    # how many values it takes
    count = int(m.sum())
    if source._data.size < count:
        raise RuntimeError("Number of elements of source < number of ones in mask")
    part = index(source.reshape(-1), slice(0, count))
    return _named(IndexPut.apply(x, m, part, False), "MaskedScatterBackward0")


# ---------------------------------------------------------------- nonzero, take, put
def nonzero(input: Tensor, *, out=None, as_tuple: bool = False):
    """Indices of the non-zero elements of input, as an (n, input.ndim) tensor, or with
    as_tuple=True one 1-D index tensor per dimension."""
    refuse_limited(input._data, "nonzero_count_cpu")
    _python_value("nonzero", "size", input)
    if as_tuple:
        return run(NonzeroTuple, input)
    return run(Nonzero, input)


Nonzero = nondifferentiable("nonzero", lambda x: np.argwhere(x._data).astype(np.int64))
NonzeroTuple = nondifferentiable("nonzero_tuple", lambda x: tuple(
    i.astype(np.int64) for i in np.nonzero(np.atleast_1d(x._data))))


def argwhere(input: Tensor) -> Tensor:
    """Indices of the non-zero elements of input, as an (n, input.ndim) tensor."""
    return nonzero(input)


def _flat_index(input: Tensor, index: Tensor, op: str) -> np.ndarray:
    idx = _index_array(index, op)
    check_values(_check_flat_range, index, input._data.size)
    return idx


def _check_flat_range(idx: np.ndarray, n: int) -> None:
    if idx.size and (idx.max() >= n or idx.min() < -n):
        bad = idx.max() if idx.max() >= n else idx.min()
        raise IndexError(f"out of range: tried to access index {bad} on a tensor of {n} "
                         "elements.")


def take(input: Tensor, index: Tensor) -> Tensor:
    """Elements of input, seen as flattened to 1-D, at the positions in `index`; the result has
    index's shape."""
    refuse_limited(input._data, "take_cpu")
    idx = _flat_index(input, index, "take")
    return _named(Index.apply(input.reshape(-1), idx), "TakeBackward0")


def take_along_dim(input: Tensor, indices: Tensor, dim: int | None = None) -> Tensor:
    """Values of input picked along `dim` by `indices` broadcast against input (as the indices
    argsort or argmax return); dim=None works on the flattened input."""
    if dim is None:
        return gather(input.reshape(-1), 0, indices.reshape(-1))
    dim = input._wrap_dim(dim)
    size, idx = input.shape[dim], indices._data
    if idx.size and -size <= idx.min() < 0:  # along a dim, negative indices count from the end
        indices = Tensor._wrap(np.where(idx < 0, idx + size, idx))
    shape = list(np.broadcast_shapes(_except(input.shape, dim), _except(indices.shape, dim)))
    x = input.expand(shape[:dim] + [input.shape[dim]] + shape[dim + 1:])
    i = indices.expand(shape[:dim] + [indices.shape[dim]] + shape[dim + 1:])
    return gather(x, dim, i)


def _except(shape, dim: int) -> tuple:
    """`shape` with size 1 at `dim` (the dim take_along_dim does not broadcast)."""
    return tuple(1 if d == dim else s for d, s in enumerate(shape))


def put(input: Tensor, index: Tensor, source: Tensor, accumulate: bool = False) -> Tensor:
    """Copy of input with source's values written at flat positions `index` (accumulate=True adds
    them)."""
    idx = _flat_index(input, index, "put")
    if source._data.size != idx.size:
        raise RuntimeError(f"put_(): Expected source and index to have the same number of "
                           f"elements, but got source.numel() = {source._data.size}, "
                           f"index.numel() = {idx.size}")
    out = IndexPut.apply(input.reshape(-1), idx.reshape(-1), source.reshape(-1),
                         bool(accumulate))
    return _named(out.reshape(input.shape), "PutBackward0")
