"""Shape ops. Views (view, expand, permute, transpose, squeeze, unsqueeze, ...) are
NumPy views of the same memory, so writes through a view reach its base as in torch.

Joining and splitting (cat, stack, split, chunk, ...) live in joining.py; they are
re-exported at the end of this file."""
from __future__ import annotations

import math

import numpy as np

from .. import _dtype
from .._dtype import refuse_limited, scalar_type_name
from .._size import Size
from .._memory_format import (check_format, contiguous_format, is_contiguous_as, memory_order,
                              preserve_format)
from .._cpu.transpose import contiguous as contiguous_array
from .._modes import current as modes
from .._recorded_call import recorded_call, replayed_call
from .._tensor import Tensor, _python_value
from ..autograd.function import Function
from .indexing import Index, IndexPut, _named, index, put_into_zeros
from ._nondifferentiable import nondifferentiable

METHODS = ["as_strided_", "view", "reshape", "view_as", "reshape_as", "expand", "expand_as", "permute",
           "transpose", "swapaxes", "swapdims", "t", "squeeze", "unsqueeze", "flatten",
           "unflatten", "contiguous", "narrow", "select", "movedim", "moveaxis", "flip",
           "fliplr", "flipud", "roll", "rot90", "repeat", "tile", "repeat_interleave",
           "diagonal", "diag_embed", "tril", "triu", "as_strided", "unfold", "broadcast_to",
           "as_strided_scatter",
           "ravel", "adjoint", "narrow_copy", "diagflat", "select_scatter", "slice_scatter",
           "diagonal_scatter", "unsqueeze_", "squeeze_", "t_", "transpose_", "swapaxes_",
           "swapdims_", "detach"]
INPLACE = ["tril", "triu"]

__all__ = ["view", "reshape", "expand", "permute", "transpose", "swapaxes", "swapdims", "t",
           "squeeze", "unsqueeze", "flatten", "unflatten", "narrow", "select", "movedim",
           "moveaxis", "flip", "fliplr", "flipud", "roll", "rot90", "repeat_interleave", "tile",
           "diagonal", "diag_embed", "tril", "triu", "as_strided", "broadcast_to",
           "as_strided_scatter", "resize_as_",
           "broadcast_tensors", "broadcast_shapes", "meshgrid", "ravel", "adjoint", "narrow_copy",
           "diagflat", "select_scatter", "slice_scatter", "diagonal_scatter"]


def int_list_argument(op: str, name: str, positional: tuple, keyword=None) -> tuple:
    """The int list of an op that torch lets users write three ways: as separate ints
    (x.view(2, 3)), as one sequence (x.view((2, 3))) or by keyword (x.view(size=(2, 3)))."""
    if keyword is not None:
        if positional:
            raise TypeError(f"{op}() got multiple values for argument '{name}'")
        positional = (keyword,)
    if not positional:
        raise TypeError(f'{op}() missing 1 required positional arguments: "{name}"')
    if len(positional) == 1 and isinstance(positional[0], (tuple, list)):
        return tuple(positional[0])
    return tuple(positional)


def infer_shape(shape, numel: int) -> tuple:
    """Resolve one -1 in `shape` and check the element count, with torch's errors."""
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = shape[0]
    shape = tuple(int(s) for s in shape)
    unknown = [i for i, s in enumerate(shape) if s == -1]
    if len(unknown) > 1:
        raise RuntimeError("only one dimension can be inferred")
    known = math.prod(s for s in shape if s != -1)
    if unknown:
        if known == 0 or numel % known:
            raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
        shape = shape[:unknown[0]] + (numel // known,) + shape[unknown[0] + 1:]
    elif known != numel:
        raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
    return shape


class View(Function):
    backward_name = "ViewBackward0"
    is_view = True

    @staticmethod
    def forward(ctx, x, shape):
        ctx.in_shape = x.shape
        try:
            return x.reshape(shape, copy=False)
        except ValueError:
            raise RuntimeError(
                "view size is not compatible with input tensor's size and stride (at least one "
                "dimension spans across two contiguous subspaces). Use .reshape(...) instead."
            ) from None

    @staticmethod
    def backward(ctx, grad):
        return grad.reshape(ctx.in_shape), None


class CopyReshape(Function):
    backward_name = "UnsafeViewBackward0"

    @staticmethod
    def forward(ctx, x, shape):
        ctx.in_shape = x.shape
        return contiguous_array(x).reshape(shape)

    @staticmethod
    def backward(ctx, grad):
        return grad.reshape(ctx.in_shape), None


def view(input: Tensor, *shape, size=None, dtype=None) -> Tensor:
    """A view of input with another shape and the same elements (one size may be -1); raises when
    the strides do not allow a view (shape as ints, one sequence or size=). view(dtype)
    reinterprets the bytes."""
    if dtype is None and size is None and len(shape) == 1 and \
            not isinstance(shape[0], (int, tuple, list)):
        dtype, shape = shape[0], ()
    if dtype is not None and not shape and size is None:
        return _view_as_dtype(input, dtype)
    if not shape and size is None:
        raise TypeError("view() received an invalid combination of arguments - got (), but "
                        "expected one of:\n * (torch.dtype dtype)\n * (tuple of ints size)")
    shape = int_list_argument("view", "size", shape, size)
    return View.apply(input, infer_shape(shape, input._data.size))


def _view_as_dtype(input: Tensor, dtype) -> Tensor:
    """view(dtype): the same bytes read as `dtype`, outside autograd as in torch. With another
    element size the last dimension (contiguous) shrinks or grows by the size ratio."""
    old = input.dtype
    if dtype.itemsize != old.itemsize:
        what = f"to view {old.scalar_name} as {dtype.scalar_name} (different element sizes)"
        data = input._data
        if data.ndim == 0:
            raise RuntimeError(f"self.dim() cannot be 0 {what}")
        if data.shape[-1] != 1 and data.strides[-1] != old.itemsize:
            raise RuntimeError(f"self.stride(-1) must be 1 {what}, but got "
                               f"{data.strides[-1] // old.itemsize}")
        ratio = dtype.itemsize // old.itemsize
        if ratio > 1 and data.shape[-1] % ratio:
            raise RuntimeError(f"self.size(-1) must be divisible by {ratio} {what}, but got "
                               f"{data.shape[-1]}")
    return input._make_view(input._data.view(dtype.numpy))


def reshape(input: Tensor, *sizes, shape=None) -> Tensor:
    """input with another shape (one size may be -1): a view when possible, else a copy. The
    shape is given as ints, one sequence or shape=."""
    shape = infer_shape(int_list_argument("reshape", "shape", sizes, shape), input._data.size)
    if shape == input._data.shape:
        return View.apply(input, shape)
    try:
        input._data.reshape(shape, copy=False)
    except ValueError:
        return CopyReshape.apply(input, shape)
    return View.apply(input, shape)


def view_as(input: Tensor, other: Tensor) -> Tensor:
    """input viewed with other's shape."""
    return view(input, other.shape)


def reshape_as(input: Tensor, other: Tensor) -> Tensor:
    """input reshaped to other's shape."""
    return reshape(input, other.shape)


class Expand(Function):
    backward_name = "ExpandBackward0"
    is_view = True

    @staticmethod
    def forward(ctx, x, shape):
        ctx.in_shape = x.shape
        if not isinstance(x, np.ndarray) or not x.flags.writeable:  # (a meta array, say)
            return np.broadcast_to(x, shape)
        # A writable view, as torch's: fill_ and indexed writes go through to x's memory
        # (in-place math refuses repeated elements, see Tensor._refuse_internal_overlap).
        lead = len(shape) - x.ndim
        strides = [0] * lead + [0 if n == 1 and s != 1 else st
                                for n, s, st in zip(x.shape, shape[lead:], x.strides)]
        return _dtype.as_strided(x, shape, strides)

    @staticmethod
    def backward(ctx, grad):
        return grad.sum_to_size(ctx.in_shape), None


def expand(input: Tensor, *sizes, size=None, implicit: bool = False) -> Tensor:
    """A view of input with size-1 dimensions repeated (stride 0) to the given sizes (ints, one
    sequence or size=); -1 keeps a dimension, new dimensions go in front. `implicit` is
    torch's internal marker of broadcasting and changes nothing."""
    sizes = int_list_argument("expand", "size", sizes, size)
    shape = input._data.shape
    if len(sizes) < len(shape):
        raise RuntimeError(f"expand(torch.{input.dtype._legacy_name}{{{list(shape)}}}, "
                           f"size={list(sizes)}): the number of sizes provided ({len(sizes)}) "
                           "must be greater or equal to the number of dimensions in the "
                           f"tensor ({len(shape)})")
    lead = len(sizes) - len(shape)
    target = list(sizes)
    for i in reversed(range(len(sizes))):      # torch checks from the last dim
        own, s = (shape[i - lead] if i >= lead else None), sizes[i]
        if s == -1:
            if own is None:
                raise RuntimeError("The expanded size of the tensor (-1) isn't allowed in a "
                                   f"leading, non-existing dimension {i}")
            s = own
        elif own is not None and own != 1 and own != s:
            raise RuntimeError(f"The expanded size of the tensor ({s}) must match the existing "
                               f"size ({own}) at non-singleton dimension {i}.  Target sizes: "
                               f"{list(sizes)}.  Tensor sizes: {list(shape)}")
        target[i] = int(s)
    return Expand.apply(input, tuple(target))


def expand_as(input: Tensor, other: Tensor) -> Tensor:
    """input expanded to other's shape."""
    return expand(input, other.shape)


class Permute(Function):
    backward_name = "PermuteBackward0"
    is_view = True

    @staticmethod
    def forward(ctx, x, dims):
        ctx.dims = dims
        return x.transpose(dims)

    @staticmethod
    def backward(ctx, grad):
        return grad.permute(tuple(np.argsort(ctx.dims))), None


def permute(input: Tensor, *order, dims=None) -> Tensor:
    """A view of input with its dimensions reordered as `dims` (ints, one sequence or dims=)."""
    dims = int_list_argument("permute", "dims", order, dims)
    n = input._data.ndim
    if len(dims) != n:
        raise RuntimeError(f"permute(sparse_coo): number of dimensions in the tensor input does "
                           f"not match the length of the desired ordering of dimensions i.e. "
                           f"input.dim() = {n} is not equal to len(dims) = {len(dims)}")
    dims = tuple(input._wrap_dim(d) for d in dims)
    if len(set(dims)) != n:
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    return Permute.apply(input, dims)


class Transpose(Function):
    backward_name = "TransposeBackward0"
    is_view = True

    @staticmethod
    def forward(ctx, x, dim0, dim1):
        ctx.dims = (dim0, dim1)
        return x.swapaxes(dim0, dim1)

    @staticmethod
    def backward(ctx, grad):
        return grad.transpose(*ctx.dims), None, None


def transpose(input: Tensor, dim0: int, dim1: int) -> Tensor:
    """A view of input with dimensions dim0 and dim1 swapped."""
    n = input._data.ndim
    if n == 0:
        return View.apply(input, ())
    return Transpose.apply(input, input._wrap_dim(dim0), input._wrap_dim(dim1))


swapaxes = swapdims = transpose


def t(input: Tensor) -> Tensor:
    """Transpose of a tensor of at most 2 dimensions (1-D and 0-D are returned as they are)."""
    if input._data.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is "
                           f"{input._data.ndim}D")
    if input._data.ndim < 2:
        return _named(View.apply(input, input._data.shape), "TBackward0")
    return _named(transpose(input, 0, 1), "TBackward0")


def adjoint(input: Tensor) -> Tensor:
    """The conjugate transpose of the last two dims."""
    if input._data.ndim < 2:
        raise RuntimeError(f"tensor.adjoint() is only supported on matrices or batches of "
                           f"matrices. Got {input._data.ndim}-D tensor.")
    out = transpose(input, -2, -1)
    return out.conj() if input.is_complex() else out


def _squeeze_form(dim) -> int:
    """torch numbers squeeze's graph nodes by form: 0 all dims, 1 one dim, 2 a list of dims."""
    return 0 if dim is None else 2 if isinstance(dim, (tuple, list)) else 1


def squeeze(input: Tensor, dim=None) -> Tensor:
    """A view of input without its size-1 dimensions (only those in `dim` when given)."""
    shape = input._data.shape
    if dim is None:
        dims = {i for i, s in enumerate(shape) if s == 1}
    else:
        dims = {input._wrap_dim(d) for d in (dim if isinstance(dim, (tuple, list)) else (dim,))}
        dims = {d for d in dims if shape and shape[d] == 1}
    return _named(View.apply(input, tuple(s for i, s in enumerate(shape) if i not in dims)),
                  f"SqueezeBackward{_squeeze_form(dim)}")


def unsqueeze(input: Tensor, dim: int) -> Tensor:
    """A view of input with a new size-1 dimension inserted at `dim`."""
    shape = input._data.shape
    d = input._wrap_dim(dim, len(shape) + 1)
    return _named(View.apply(input, shape[:d] + (1,) + shape[d:]), "UnsqueezeBackward0")


# ---------------------------------------------------------------- in-place shape changes
def _take_view_shape(self: Tensor, view: Tensor, backward_name: str) -> Tensor:
    """torch's in-place metadata ops (unsqueeze_, t_ ...): self takes the shape and strides
    of `view`, a view of self. The memory is untouched; the version counter moves on, and
    autograd records the view op as self's latest history."""
    self._check_inplace()
    self._data = view._data
    if view._grad_fn is not None:
        self._grad_fn = _named(view, backward_name)._grad_fn
        self._output_nr = 0
    self._bump_version()
    return self


def unsqueeze_(self: Tensor, dim: int) -> Tensor:
    """In-place unsqueeze: self gains a size-1 dimension at `dim`."""
    return _take_view_shape(self, unsqueeze(self, dim), "UnsqueezeBackward1")


def squeeze_(self: Tensor, dim=None) -> Tensor:
    """In-place squeeze: self loses its size-1 dimensions (those in `dim` when given)."""
    return _take_view_shape(self, squeeze(self, dim), f"SqueezeBackward{3 + _squeeze_form(dim)}")


def t_(self: Tensor) -> Tensor:
    """In-place t: self's two dimensions are swapped."""
    if self._data.ndim > 2:
        raise RuntimeError(f"t_() expects a tensor with <= 2 dimensions, but self is "
                           f"{self._data.ndim}D")
    return _take_view_shape(self, t(self), "TBackward1")


def transpose_(self: Tensor, dim0: int, dim1: int) -> Tensor:
    """In-place transpose: self's dimensions dim0 and dim1 are swapped."""
    return _take_view_shape(self, transpose(self, dim0, dim1), "TransposeBackward1")


swapaxes_ = swapdims_ = transpose_


@recorded_call
def flatten(input: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    """input with dimensions start_dim .. end_dim merged into one (a view when possible)."""
    shape = input._data.shape
    if not shape:
        return reshape(input, (1,))
    s, e = input._wrap_dim(start_dim), input._wrap_dim(end_dim)
    if s > e:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if s == e:
        return input
    return reshape(input, shape[:s] + (math.prod(shape[s:e + 1]),) + shape[e + 1:])


def ravel(input: Tensor) -> Tensor:
    """A 1-D view of the elements (a copy first when input is not contiguous)."""
    return view(contiguous(input), -1)


def unflatten(input: Tensor, dim: int, sizes) -> Tensor:
    """input with dimension `dim` split into the dimensions `sizes` (one may be -1)."""
    shape = input._data.shape
    d = input._wrap_dim(dim)
    inner = infer_shape(tuple(sizes), shape[d])
    return view(input, shape[:d] + inner + shape[d + 1:])


def contiguous(input: Tensor, memory_format=contiguous_format) -> Tensor:
    """input itself when already laid out in memory_format, else a copy that is."""
    check_format(memory_format, "contiguous")
    memory_order(memory_format, input.ndim)          # the channels-last formats' rank
    if is_contiguous_as(input._data, memory_format):
        return input
    if memory_format is preserve_format:
        raise RuntimeError("preserve memory format is unsupported by the contiguous operator")
    from .pointwise import clone
    return clone(input, memory_format=memory_format)


def narrow(input: Tensor, dim: int, start, length: int) -> Tensor:
    """A view of input's `length` entries along `dim` starting at `start`."""
    if input._data.ndim == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    dim = input._wrap_dim(dim)
    n = input._data.shape[dim]
    start = int(start)
    if not -n <= start <= n:
        raise IndexError(f"start out of range (expected to be in range of [{-n}, {n}], but got "
                         f"{start})")
    start %= max(n, 1) if start < 0 else n + 1
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    if start + length > n:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({n}).")
    return index(input, (slice(None),) * dim + (slice(start, start + length),))


def narrow_copy(input: Tensor, dim: int, start: int, length: int) -> Tensor:
    """narrow, copied into new memory."""
    return _named(narrow(input, dim, start, length).clone(), "NarrowCopyBackward0")


def select(input: Tensor, dim: int, index_: int) -> Tensor:
    """A view of input at position index_ along `dim`, without that dimension."""
    if input._data.ndim == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    dim = input._wrap_dim(dim)
    n = input._data.shape[dim]
    if not -n <= index_ < n:
        raise IndexError(f"select(): index {index_} out of range for tensor of size "
                         f"{list(input._data.shape)} at dimension {dim}")
    return _named(index(input, (slice(None),) * dim + (int(index_),)), "SelectBackward0")


# ---------------------------------------------------------------- reordering
def movedim(input: Tensor, source, destination) -> Tensor:
    """A view of input with the dimensions `source` moved to positions `destination`, the others
    keeping their order."""
    src = list(source) if isinstance(source, (tuple, list)) else [source]
    dst = list(destination) if isinstance(destination, (tuple, list)) else [destination]
    if len(src) != len(dst):
        raise RuntimeError(f"movedim: Invalid source or destination dims: source ({src} dims) "
                           f"should contain the same number of dims as destination ({dst} dims)")
    n = input._data.ndim
    src = [input._wrap_dim(d) for d in src]
    dst = [input._wrap_dim(d) for d in dst]
    for name, dims in (("source", src), ("destination", dst)):
        if len(set(dims)) != len(dims):
            raise RuntimeError(f"movedim: repeated dim in `{name}` ({dims})")
    order = [None] * n
    for s, d in zip(src, dst):
        order[d] = s
    rest = iter(d for d in range(n) if d not in src)
    return permute(input, tuple(o if o is not None else next(rest) for o in order))


moveaxis = movedim


def _dims_list(input: Tensor, dims) -> tuple:
    dims = dims if isinstance(dims, (tuple, list)) else (dims,)
    wrapped = tuple(input._wrap_dim(d) for d in dims)
    if len(set(wrapped)) != len(wrapped):
        raise RuntimeError(f"dim {wrapped[0]} appears multiple times in the list of dims")
    return wrapped


class Flip(Function):
    backward_name = "FlipBackward0"

    @staticmethod
    def forward(ctx, x, dims):
        ctx.dims = dims
        return np.flip(x, dims).copy()

    @staticmethod
    def backward(ctx, grad):
        return Flip.apply(grad, ctx.dims), None


def flip(input: Tensor, *order, dims=None) -> Tensor:
    """Copy of input with the order of elements reversed along the dimensions `dims` (ints, one
    sequence or dims=)."""
    dims = int_list_argument("flip", "dims", order, dims)
    refuse_limited(input._data, "flip_cpu")
    return Flip.apply(input, _dims_list(input, dims) if input._data.ndim else ())


def fliplr(input: Tensor) -> Tensor:
    """Copy of input with its columns (dimension 1) in reverse order."""
    if input._data.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return flip(input, 1)


def flipud(input: Tensor) -> Tensor:
    """Copy of input with its rows (dimension 0) in reverse order."""
    if input._data.ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return flip(input, 0)


class Roll(Function):
    backward_name = "RollBackward0"

    @staticmethod
    def forward(ctx, x, shifts, dims):
        ctx.shifts, ctx.dims = shifts, dims
        return np.roll(x, shifts, dims)

    @staticmethod
    def backward(ctx, grad):
        return Roll.apply(grad, tuple(-s for s in ctx.shifts), ctx.dims), None, None


def roll(input: Tensor, shifts, dims=None) -> Tensor:
    """Copy of input with elements shifted by `shifts` along `dims`, wrapping around (the flattened
    tensor when dims is None)."""
    shifts = tuple(shifts) if isinstance(shifts, (tuple, list)) else (shifts,)
    if dims is None:
        if len(shifts) != 1:
            raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, "
                               "dims:0")
        return Roll.apply(input.flatten(), shifts, (0,)).view(input.shape)
    dims = tuple(dims) if isinstance(dims, (tuple, list)) else (dims,)
    if len(shifts) != len(dims):
        raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, "
                           f"dims:{len(dims)}")
    return Roll.apply(input, tuple(int(s) for s in shifts),
                      tuple(input._wrap_dim(d) for d in dims))


def rot90(input: Tensor, k: int = 1, dims=(0, 1)) -> Tensor:
    """Copy of input rotated by k * 90 degrees in the plane of the two `dims`, from the first
    towards the second."""
    dims = list(dims)
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    n = input._data.ndim
    if n < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {n}")
    d0, d1 = dims
    if d0 == d1 or (d0 - d1) % n == 0:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {d0} and "
                           f"dim1 = {d1}")
    for name, d in (("dim0", d0), ("dim1", d1)):
        if not -n <= d < n:
            raise RuntimeError(f"Rotation {name} out of range, {name} = {d}")
    k %= 4
    if k == 1:
        out = flip(input, d1).transpose(d0, d1)
    elif k == 2:
        out = flip(input, (d0, d1))
    elif k == 3:
        out = flip(input, d0).transpose(d0, d1)
    else:
        out = flip(input, ())
    return _named(out, "Rot90Backward0")


# ---------------------------------------------------------------- repeating
class Repeat(Function):
    backward_name = "RepeatBackward0"

    @staticmethod
    def forward(ctx, x, repeats):
        ctx.in_shape = x.shape
        ctx.repeats = repeats
        padded = (1,) * (len(repeats) - x.ndim) + x.shape
        return np.tile(x.reshape(padded), repeats)

    @staticmethod
    def backward(ctx, grad):
        shape, repeats = ctx.in_shape, ctx.repeats
        padded = (1,) * (len(repeats) - len(shape)) + shape
        interleaved = tuple(s for pair in zip(repeats, padded) for s in pair)
        summed = grad.reshape(interleaved).sum(tuple(range(0, 2 * len(repeats), 2)))
        return summed.reshape(shape), None


def repeat(input: Tensor, *sizes, repeats=None) -> Tensor:
    """Copy of self tiled `repeats[i]` times along each dimension (extra counts add leading
    dimensions); the counts are given as ints, one sequence or repeats=."""
    sizes = tuple(int(s) for s in int_list_argument("repeat", "repeats", sizes, repeats))
    if len(sizes) < input._data.ndim:
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number "
                           "of dimensions of tensor")
    if any(s < 0 for s in sizes):
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(sizes)}: "
                           f"{list(sizes)}")
    return Repeat.apply(input, sizes)


def tile(input: Tensor, *counts, dims=None) -> Tensor:
    """input repeated along each dimension as `dims` says (ints, one sequence or dims=); like
    repeat, padding dims with ones in front when shorter."""
    dims = int_list_argument("tile", "dims", counts, dims)
    return repeat(input, (1,) * (input._data.ndim - len(dims)) + dims)


def repeat_interleave(input: Tensor, repeats=None, dim: int | None = None, *,
                      output_size: int | None = None) -> Tensor:
    """Each element (or slice along `dim`) repeated `repeats` times in place: [1, 2] -> [1, 1, 2,
    2]; flattens when dim is None."""
    if repeats is None:
        counts = input._data
        _refuse_non_integer_counts(counts)
        return Tensor._wrap(np.repeat(np.arange(counts.size, dtype=np.int64), counts))
    if isinstance(repeats, Tensor):
        _refuse_non_integer_counts(repeats._data)
    x = input.reshape(-1) if dim is None else input
    dim = 0 if dim is None else x._wrap_dim(dim)
    x = reshape(x, (1,)) if x._data.ndim == 0 else x
    if isinstance(repeats, Tensor):
        _python_value("repeat_interleave", "size", repeats)
    idx = _repeated_positions(repeats, x._data.shape[dim], dim)
    return _named(Index.apply(x, (slice(None),) * dim + (idx,)), "IndexSelectBackward0")


def _refuse_non_integer_counts(counts: np.ndarray) -> None:
    if counts.dtype.kind not in "iu":
        raise NotImplementedError(f'"repeat_interleave_cpu" not implemented for '
                                  f"'{scalar_type_name(counts.dtype)}'")


@replayed_call
def _repeated_positions(repeats, n: int, dim: int) -> np.ndarray:
    """Positions 0..n-1, each repeated as `repeats` (a number, or one count per position)
    says; a replayed call, so that a compiled plan reads each call's counts."""
    counts = repeats._data if isinstance(repeats, Tensor) else np.asarray(repeats)
    if counts.ndim == 1 and counts.size != n and counts.size != 1:
        raise RuntimeError(f"repeats must have the same size as input along dim, but got "
                           f"repeats.size(0) = {counts.size} and input.size({dim}) = {n}")
    if (counts < 0).any():
        raise RuntimeError("repeats can not be negative")
    return np.repeat(np.arange(n, dtype=np.int64), counts.reshape(-1) if counts.ndim else counts)


# ---------------------------------------------------------------- strided views
class StridedView(Function):
    """A view whose elements are picked by `make(array) -> view of array` (diagonal,
    unfold). Backward sends each gradient element back to the element it was read from,
    found by applying `make` to an array of element numbers."""
    is_view = True

    @staticmethod
    def forward(ctx, x, make, backward_name):
        ctx.make, ctx.in_shape = make, x.shape
        ctx.backward_name = backward_name
        out = make(x)
        if not out.flags.writeable and x.flags.writeable:
            out.flags.writeable = True  # np.diagonal hands out read-only views
        return out

    @staticmethod
    def backward(ctx, grad):
        shape = ctx.in_shape
        positions = ctx.make(np.arange(math.prod(shape), dtype=np.int64).reshape(shape))
        return put_into_zeros(grad, positions, (math.prod(shape),)).reshape(shape), None, None


def diagonal(input: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    """A view of the diagonal `offset` of the matrices in dimensions dim1 and dim2, as the last
    dimension."""
    d1, d2 = input._wrap_dim(dim1), input._wrap_dim(dim2)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return StridedView.apply(input, lambda a: a.diagonal(offset, d1, d2),
                             "DiagonalBackward0")


class DiagEmbed(Function):
    backward_name = "DiagEmbedBackward0"

    @staticmethod
    def forward(ctx, x, offset, dim1, dim2):
        ctx.args = (offset, dim1, dim2)
        n = x.shape[-1] + abs(offset)
        shape = list(x.shape[:-1])
        for d in sorted((dim1, dim2)):
            shape.insert(d, n)
        out = np.zeros(shape, dtype=x.dtype)
        diag = np.diagonal(out, offset, dim1, dim2)
        diag.flags.writeable = True
        diag[...] = x
        return out

    @staticmethod
    def backward(ctx, grad):
        return diagonal(grad, *ctx.args), None, None, None


def diag_embed(input: Tensor, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    """Tensor whose matrices in dimensions dim1 and dim2 have input's last dimension on their
    diagonal `offset`, zeros elsewhere."""
    n = input._data.ndim + 1
    d1, d2 = input._wrap_dim(dim1, n), input._wrap_dim(dim2, n)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return DiagEmbed.apply(input, offset, d1, d2)


def diagflat(input: Tensor, offset: int = 0) -> Tensor:
    """A 2-D matrix with the flattened input on diagonal `offset`."""
    return DiagEmbed.apply(reshape(input, (-1,)), int(offset), 0, 1)


# ---------------------------------------------------------------- scatter into views
def _scatter_view(input: Tensor, src: Tensor, key, name: str) -> Tensor:
    """A copy of input with the part that `key` selects (select, slice, diagonal) replaced
    by src; gradients flow to input outside that part and to src inside it."""
    target = np.broadcast_to(np.empty((), np.bool_), input._data.shape)[key].shape
    if src._data.shape != target:
        raise RuntimeError(f"expected src to have a size equal to the slice of self. src size = "
                           f"{list(src._data.shape)}, slice size = {list(target)}")
    if src.dtype is not input.dtype:
        src = src.to(input.dtype)
    return _named(IndexPut.apply(input, key, src), name)


def select_scatter(input: Tensor, src: Tensor, dim: int, index: int) -> Tensor:
    """Copy of input with src written into the slice input.select(dim, index)."""
    select(input.detach(), dim, index)  # torch's errors for a bad dim or index
    key = (slice(None),) * input._wrap_dim(dim) + (int(index),)
    return _scatter_view(input, src, key, "SelectScatterBackward0")


def slice_scatter(input: Tensor, src: Tensor, dim: int = 0, start: int | None = None,
                  end: int | None = None, step: int = 1) -> Tensor:
    """Copy of input with src written into the slice start:end:step along `dim`."""
    if step <= 0:
        raise RuntimeError("slice step must be positive")
    key = (slice(None),) * input._wrap_dim(dim) + (slice(start, end, step),)
    return _scatter_view(input, src, key, "SliceScatterBackward0")


def diagonal_scatter(input: Tensor, src: Tensor, offset: int = 0, dim1: int = 0,
                     dim2: int = 1) -> Tensor:
    """Copy of input with src written onto the diagonal chosen by offset, dim1 and dim2."""
    diagonal(input.detach(), offset, dim1, dim2)  # torch's errors for bad dims
    shape = input._data.shape
    positions = np.diagonal(np.arange(math.prod(shape)).reshape(shape), offset,
                            input._wrap_dim(dim1), input._wrap_dim(dim2))
    return _scatter_view(input, src, np.unravel_index(positions, shape),
                         "DiagonalScatterBackward0")


def _unfold_view(a: np.ndarray, dim: int, size: int, step: int) -> np.ndarray:
    if a.ndim == 0:
        return _dtype.as_strided(a.reshape(1), (size,), (a.itemsize,))
    count = (a.shape[dim] - size) // step + 1
    shape = a.shape[:dim] + (count,) + a.shape[dim + 1:] + (size,)
    strides = a.strides[:dim] + (a.strides[dim] * step,) + a.strides[dim + 1:] + \
        (a.strides[dim],)
    return _dtype.as_strided(a, shape, strides)


def unfold(input: Tensor, dimension: int, size: int, step: int) -> Tensor:
    """A view with the windows of length `size`, every `step` entries along `dimension`, in a new
    last dimension."""
    dim = input._wrap_dim(dimension)
    n = input._data.shape[dim] if input._data.ndim else 1
    if size > n:
        raise RuntimeError(f"maximum size for tensor at dimension {dim} is {n} but size is "
                           f"{size}")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    return StridedView.apply(input, lambda a: _unfold_view(a, dim, size, step),
                             "UnfoldBackward0")


class AsStrided(Function):
    """A view of the input's storage with the given sizes, strides and offset.

    `storage` is the flat array of the input's root tensor, and `in_geometry` the input's
    own (shape, strides, offset) in it: tensor facts forward cannot read from an array."""
    backward_name = "AsStridedBackward0"
    is_view = True

    @staticmethod
    def forward(ctx, x, size, stride, offset, storage, in_geometry):
        ctx.geometry = (size, stride, offset, storage.size)
        ctx.in_geometry = in_geometry
        item = storage.itemsize
        return _dtype.as_strided(storage[offset:], size, tuple(s * item for s in stride))

    @staticmethod
    def backward(ctx, grad):
        size, stride, offset, numel = ctx.geometry
        labels = np.arange(numel, dtype=np.int64)
        item = labels.itemsize

        def positions(shape, strides, start):
            return np.lib.stride_tricks.as_strided(labels[start:], shape,
                                                   tuple(s * item for s in strides))
        storage_grad = put_into_zeros(grad, positions(size, stride, offset), (numel,))
        return index(storage_grad, positions(*ctx.in_geometry)), None, None, None, None, None


def as_strided(input: Tensor, size, stride, storage_offset: int | None = None) -> Tensor:
    """A view of input's memory with the given size, strides (in elements) and storage offset."""
    size, stride = tuple(int(s) for s in size), tuple(int(s) for s in stride)
    root = input if input._base is None else input._base
    if not root._data.flags.c_contiguous:
        raise NotImplementedError("as_strided on a tensor whose storage is not contiguous "
                                  "(e.g. from_numpy of a transposed array)")
    own_offset = input.storage_offset()
    offset = own_offset if storage_offset is None else int(storage_offset)
    _check_storage_bounds(size, stride, offset, input._data.itemsize, root._data.nbytes)
    in_geometry = (input._data.shape, input.stride(), own_offset)
    return AsStrided.apply(input, size, stride, offset, root._data.reshape(-1), in_geometry)


def _check_storage_bounds(size: tuple, stride: tuple, offset: int, item: int,
                          nbytes: int) -> None:
    needed = (offset + 1 + sum((n - 1) * s for n, s in zip(size, stride))) * item \
        if all(size) else 0
    if needed > nbytes:
        raise RuntimeError(f"setStorage: sizes {list(size)}, strides {list(stride)}, storage "
                           f"offset {offset}, and itemsize {item} requiring a storage size of "
                           f"{needed} are out of bounds for storage of size {nbytes}")


def _elements_in_memory_order(input: Tensor) -> np.ndarray:
    """The flat (row-major) index of the element in each memory slot of a copy of input: a
    copy keeps a dense input's layout (a transpose, channels-last), else it is row-major."""
    shape, strides = input._data.shape, input.stride()
    order = sorted(range(len(shape)), key=lambda d: -strides[d])     # outermost first
    expected, dense = 1, True
    for d in reversed(order):
        if shape[d] != 1 and strides[d] != expected:
            dense = False
        expected *= shape[d]
    flat = np.arange(math.prod(shape)).reshape(shape)
    return (flat.transpose(order) if dense else flat).reshape(-1)


def as_strided_scatter(input: Tensor, src: Tensor, size, stride,
                       storage_offset: int | None = None) -> Tensor:
    """Copy of input with src written into the copy's as_strided(size, stride, storage_offset)
    view (strides and offset count memory slots of the copy)."""
    size, stride = tuple(int(s) for s in size), tuple(int(s) for s in stride)
    offset = 0 if storage_offset is None else int(storage_offset)
    elements = _elements_in_memory_order(input)
    _check_storage_bounds(size, stride, offset, input._data.itemsize,
                          elements.size * input._data.itemsize)
    slots = np.lib.stride_tricks.as_strided(np.arange(elements.size)[offset:], size,
                                            tuple(s * 8 for s in stride)) if all(size) else \
        np.zeros(size, dtype=np.int64)
    if np.unique(slots).size != slots.size:
        raise RuntimeError("unsupported operation: more than one element of the written-to "
                           "tensor refers to a single memory location. Please clone() the "
                           "tensor before performing the operation.")
    key = np.unravel_index(elements[slots], input._data.shape)
    return _scatter_view(input, src, key, "AsStridedScatterBackward0")


def resize_as_(input: Tensor, the_template: Tensor, *, memory_format=None) -> Tensor:
    """torch.resize_as_: resize `input` in place to the_template's shape (Tensor.resize_as_)."""
    return input.resize_as_(the_template, memory_format=memory_format)


def as_strided_(self: Tensor, size, stride, storage_offset: int | None = None) -> Tensor:
    """as_strided in place: self takes the view's size, strides and offset."""
    view = as_strided(self, size, stride, storage_offset)
    self._remember_buffer()
    return _take_view_shape(self, view, "AsStridedBackward1")


# ---------------------------------------------------------------- triangles
class Tril(Function):
    backward_name = "TrilBackward0"

    @staticmethod
    def forward(ctx, x, diagonal, upper):
        ctx.args = (diagonal, upper)
        return (np.triu if upper else np.tril)(x, diagonal)

    @staticmethod
    def backward(ctx, grad):
        return Tril.apply(grad, *ctx.args), None, None


def _triangle(input: Tensor, diagonal: int, upper: bool) -> Tensor:
    name = "triu" if upper else "tril"
    refuse_limited(input._data, name)
    if input._data.ndim < 2:
        raise RuntimeError(f"{name}: input tensor must have at least 2 dimensions")
    return _named(Tril.apply(input, int(diagonal), upper), name.capitalize() + "Backward0")


def tril(input: Tensor, diagonal: int = 0, *, out=None) -> Tensor:
    """Copy of the matrices of input with the elements above diagonal `diagonal` zeroed."""
    return _triangle(input, diagonal, False)


def triu(input: Tensor, diagonal: int = 0, *, out=None) -> Tensor:
    """Copy of the matrices of input with the elements below diagonal `diagonal` zeroed."""
    return _triangle(input, diagonal, True)


# ---------------------------------------------------------------- broadcasting
def broadcast_shapes(*shapes) -> Size:
    """The shape that tensors of the given shapes broadcast to, as a Size; raises when they do not
    broadcast."""
    shapes = [(s,) if isinstance(s, int) else tuple(s) for s in shapes]
    result = []
    for i, shape in enumerate(shapes):
        if len(shape) > len(result):
            result = [1] * (len(shape) - len(result)) + result
        for k in range(1, len(shape) + 1):
            size, have = shape[-k], result[-k]
            if size < 0:
                raise RuntimeError(f"Trying to create tensor with negative dimension {size}: "
                                   f"{list(shape)}")
            if size != have and size != 1 and have != 1:
                raise RuntimeError(f"Attempting to broadcast a dimension of length {size} at "
                                   f"{-k}! Mismatching argument at index {i} had {shape}; but "
                                   f"expected shape should be broadcastable to {result}")
            if have == 1:
                result[-k] = size
    return Size(result)


def broadcast_to(input: Tensor, size) -> Tensor:
    """A view of input broadcast to `size` (expand with numpy's rules)."""
    return expand(input, tuple(size))


def broadcast_tensors(*tensors) -> tuple:
    """The input tensors broadcast to their common shape, as views."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tensors[0]
    shape = tuple(broadcast_shapes(*(t._data.shape for t in tensors)))
    return tuple(t if t._data.shape == shape else expand(t, shape) for t in tensors)


def meshgrid(*tensors, indexing: str | None = None) -> tuple:
    """Coordinate grids from 1-D tensors: indexing='ij' gives dimension i input i's values; 'xy'
    (numpy's default) swaps the first two dimensions."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tensors[0]
    if indexing is None:
        import warnings
        warnings.warn("torch.meshgrid: in an upcoming release, it will be required to pass the "
                      "indexing argument.", UserWarning, stacklevel=2)
        indexing = "ij"
    if indexing not in ("ij", "xy"):
        raise RuntimeError(f"torch.meshgrid: indexing must be one of \"xy\" or \"ij\", but "
                           f"received: {indexing}")
    for t in tensors:
        if t._data.ndim > 1:
            raise RuntimeError(f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list "
                               f"but got: {t}")
    order = list(range(len(tensors)))
    if indexing == "xy" and len(tensors) >= 2:
        order[0], order[1] = 1, 0
    shape = [tensors[i]._data.size for i in order]
    outs = []
    for i, t in enumerate(tensors):
        view_shape = [1] * len(tensors)
        view_shape[order.index(i)] = -1
        outs.append(expand(reshape(t, view_shape), shape))
    return tuple(outs)


# ---------------------------------------------------------------- joining and splitting
# Imported last: joining.py builds on the views above.
Detach = nondifferentiable("detach", lambda x: x._data)
_plain_detach = Tensor.detach


def detach(self: Tensor) -> Tensor:
    """A new tensor sharing this one's data but cut from the autograd graph (requires_grad
    False)."""
    if modes().recorder is None:
        return _plain_detach(self)
    out = Detach.apply(self)        # the exporter records an Identity
    out._vc, out._base = self._vc, self._base
    return out


from .joining import (Cat, Split, Unbind, atleast_1d, atleast_2d, atleast_3d,  # noqa: E402,F401
                      cat, chunk, column_stack, concat, concatenate, dsplit, dstack, hsplit,
                      hstack, row_stack, split, stack, tensor_split, unbind, vsplit, vstack)
