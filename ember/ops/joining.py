"""Joining and splitting ops: cat/stack and their h/v/d/column variants, and
split/chunk/unbind/tensor_split and their h/v/d variants. Split pieces are views of the
input; the backward of a join narrows the gradient back into pieces, and the backward of
a split joins the gradients. Last, the matrices assembled from pieces of tensors
(block_diag, cartesian_prod, combinations, vander), built from the joins."""
from __future__ import annotations

import itertools

import numpy as np

from .. import _dtype
from .._cpu import buffers
from .._memory_format import contiguous_format, empty_as, suggested_format
from .._tensor import Tensor
from ..autograd.function import Function
from .creation import ones, zeros
from .indexing import Index, index
from .shape import _named, narrow, reshape, unsqueeze
from ..amp.policy import PROMOTE, autocast_op

METHODS = ["split", "tensor_split", "chunk", "unbind", "hsplit", "vsplit", "dsplit",
           "split_with_sizes", "unsafe_split", "unsafe_chunk", "unsafe_split_with_sizes"]

__all__ = ["cat", "concat", "concatenate", "stack", "hstack", "vstack", "row_stack", "dstack",
           "column_stack", "split", "tensor_split", "chunk", "unbind", "atleast_1d",
           "atleast_2d", "atleast_3d", "hsplit", "vsplit", "dsplit", "split_with_sizes",
           "unsafe_split", "unsafe_chunk", "unsafe_split_with_sizes",
           "block_diag", "cartesian_prod", "combinations", "vander"]


# ---------------------------------------------------------------- joining
def _tensor_list(tensors, op: str) -> list:
    if isinstance(tensors, Tensor):
        raise TypeError(f"{op}(): argument 'tensors' (position 1) must be tuple of Tensors, not "
                        "Tensor")
    return list(tensors)


class Cat(Function):
    backward_name = "CatBackward0"

    @staticmethod
    def forward(ctx, dim, *arrays):
        dtype = arrays[0].dtype
        if any(a.dtype != dtype for a in arrays):
            promoted = _dtype.from_numpy_dtype(dtype)
            for a in arrays[1:]:
                promoted = _dtype.promote_types(promoted, _dtype.from_numpy_dtype(a.dtype))
            dtype = promoted.numpy
        # Legacy rule: 1-D empty tensors are skipped whatever the other shapes are.
        kept = [a for a in arrays if a.shape != (0,)] or [arrays[0]]
        ctx.dim = dim
        ctx.sizes = [a.shape[dim] if a.shape != (0,) else None for a in arrays]
        parts = [a.astype(dtype, copy=False) for a in kept]
        if any(type(a) is not np.ndarray for a in parts):       # a meta device's arrays
            return np.concatenate(parts, axis=dim)
        shape = list(parts[0].shape)
        shape[dim] = sum(a.shape[dim] for a in parts)
        fmt = _joined_format(parts)
        out = buffers.empty(tuple(shape), dtype) if fmt is contiguous_format else \
            empty_as(tuple(shape), dtype, fmt)
        return np.concatenate(parts, axis=dim, out=out)

    @staticmethod
    def backward(ctx, grad):
        grads, start = [None], 0
        for size in ctx.sizes:
            if size is None:
                grads.append(Tensor._wrap(np.zeros((0,), dtype=grad._data.dtype)))
                continue
            grads.append(narrow(grad, ctx.dim, start, size))
            start += size
        return tuple(grads)


def _joined_format(parts: list):
    """torch.cat's output layout: the channels-last format every part suggests, else
    row-major (NumPy alone would keep any layout the parts share, a transpose's too)."""
    formats = {suggested_format(a) for a in parts}
    return formats.pop() if len(formats) == 1 else contiguous_format


@autocast_op(PROMOTE)
def cat(tensors, dim: int = 0, *, out=None) -> Tensor:
    """Join a sequence of tensors along an existing dimension `dim`; all other dimensions must match
    (empty 1-D tensors are skipped)."""
    tensors = _tensor_list(tensors, "cat")
    if not tensors:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    for i, t in enumerate(tensors):
        if t._data.ndim == 0:
            raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be "
                               "concatenated")
    kept = [(i, t) for i, t in enumerate(tensors) if t._data.shape != (0,)] or [(0, tensors[0])]
    first = kept[0][1]
    dim = first._wrap_dim(dim)
    for i, t in kept[1:]:
        if t._data.ndim != first._data.ndim:
            raise RuntimeError(f"Tensors must have same number of dimensions: got "
                               f"{first._data.ndim} and {t._data.ndim}")
        for d, (a, b) in enumerate(zip(first._data.shape, t._data.shape)):
            if d != dim and a != b:
                raise RuntimeError(f"Sizes of tensors must match except in dimension {dim}. "
                                   f"Expected size {a} but got size {b} for tensor number {i} "
                                   "in the list.")
    return Cat.apply(dim, *tensors)


concat = concatenate = cat


@autocast_op(PROMOTE)
def stack(tensors, dim: int = 0, *, out=None) -> Tensor:
    """Join a sequence of same-shaped tensors along a new dimension inserted at `dim`."""
    tensors = _tensor_list(tensors, "stack")
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    for i, t in enumerate(tensors[1:], 1):
        if t._data.shape != tensors[0]._data.shape:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got "
                               f"{list(tensors[0]._data.shape)} at entry 0 and "
                               f"{list(t._data.shape)} at entry {i}")
    dim = tensors[0]._wrap_dim(dim, tensors[0]._data.ndim + 1)
    return _named(cat([unsqueeze(t, dim) for t in tensors], dim), "StackBackward0")


def _atleast(tensors, make):
    if len(tensors) == 1 and isinstance(tensors[0], Tensor):
        return make(tensors[0])
    if len(tensors) == 1:
        tensors = tensors[0]
    return tuple(make(t) for t in tensors)


def atleast_1d(*tensors):
    """Each input tensor viewed with at least one dimension (zero-dim ones become 1-D)."""
    return _atleast(tensors, lambda t: reshape(t, (1,)) if t._data.ndim == 0 else t)


def atleast_2d(*tensors):
    """Each input tensor viewed with at least two dimensions (new leading ones)."""
    return _atleast(tensors, lambda t: reshape(t, (1,) * (2 - t._data.ndim) + t._data.shape)
                    if t._data.ndim < 2 else t)


def _to_3d(t: Tensor) -> Tensor:
    shape = t._data.shape
    if len(shape) >= 3:
        return t
    return reshape(t, {0: (1, 1, 1), 1: (1,) + shape + (1,), 2: shape + (1,)}[len(shape)])


def atleast_3d(*tensors):
    """Each input tensor viewed with at least three dimensions."""
    return _atleast(tensors, _to_3d)


def hstack(tensors, *, out=None) -> Tensor:
    """Join tensors column-wise: along dimension 1, or 0 for 1-D tensors."""
    tensors = atleast_1d(*_tensor_list(tensors, "hstack"))
    return cat(tensors, 0 if tensors and tensors[0]._data.ndim == 1 else 1)


def vstack(tensors, *, out=None) -> Tensor:
    """Join tensors row-wise, along dimension 0 (1-D tensors become rows first)."""
    return cat(atleast_2d(*_tensor_list(tensors, "vstack")), 0)


row_stack = vstack


def dstack(tensors, *, out=None) -> Tensor:
    """Join tensors depth-wise, along dimension 2 (after atleast_3d)."""
    return cat(atleast_3d(*_tensor_list(tensors, "dstack")), 2)


def column_stack(tensors, *, out=None) -> Tensor:
    """Join tensors as columns: 0-D and 1-D tensors become (n, 1) columns, then hstack."""
    tensors = _tensor_list(tensors, "column_stack")
    return cat([reshape(t, (t._data.size, 1)) if t._data.ndim <= 1 else t for t in tensors], 1)


# ---------------------------------------------------------------- splitting
class Split(Function):
    """Several views of consecutive blocks along one dim (one node, several outputs)."""
    backward_name = "SplitBackward0"
    is_view = True

    @staticmethod
    def forward(ctx, x, dim, bounds):
        ctx.dim = dim
        lead = (slice(None),) * dim
        return tuple(x[lead + (slice(a, b),)] for a, b in bounds)

    @staticmethod
    def backward(ctx, *grads):
        return cat(grads, ctx.dim), None, None


class UnsafeSplit(Split):
    """Split whose blocks are not tracked as views of the input (torch's unsafe_split and
    unsafe_chunk): in-place changes to a block are not checked against its input."""
    backward_name = "UnsafeSplitBackward0"
    is_view = False


class Unbind(Function):
    backward_name = "UnbindBackward0"
    is_view = True

    @staticmethod
    def forward(ctx, x, dim):
        ctx.dim = dim
        lead = (slice(None),) * dim
        return tuple(x[lead + (i,)] for i in range(x.shape[dim]))

    @staticmethod
    def backward(ctx, *grads):
        return stack(grads, ctx.dim), None


def _split_by_sizes(input: Tensor, sizes, dim: int, name: str, unsafe: bool = False) -> tuple:
    bounds = np.cumsum([0] + list(sizes))
    node = UnsafeSplit if unsafe else Split
    outs = node.apply(input, dim, list(zip(bounds[:-1].tolist(), bounds[1:].tolist())))
    if outs:
        _named(outs[0], "Unsafe" + name if unsafe else name)
    return outs


def split(tensor: Tensor, split_size_or_sections, dim: int = 0) -> tuple:
    """Split a tensor along `dim` into chunks of split_size (the last may be smaller) or into the
    sizes listed; returns views."""
    return _split(tensor, split_size_or_sections, dim)


def unsafe_split(tensor: Tensor, split_size: int, dim: int = 0) -> tuple:
    """split into blocks of split_size that are not tracked as views of the input."""
    if not isinstance(split_size, (int, np.integer)):
        raise TypeError(f"unsafe_split(): argument 'split_size' (position 2) must be int, not "
                        f"{type(split_size).__name__}")
    return _split(tensor, split_size, dim, unsafe=True)


def unsafe_split_with_sizes(input: Tensor, split_sizes, dim: int = 0) -> tuple:
    """split_with_sizes whose blocks are not tracked as views of the input."""
    return _split(input, list(split_sizes), dim, unsafe=True)


def _split(tensor: Tensor, split_size_or_sections, dim: int, unsafe: bool = False) -> tuple:
    if tensor._data.ndim == 0:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    dim = tensor._wrap_dim(dim)
    n = tensor._data.shape[dim]
    if isinstance(split_size_or_sections, (list, tuple)):
        sizes = [int(s) for s in split_size_or_sections]
        if sum(sizes) != n or any(s < 0 for s in sizes):
            raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {n} "
                               f"(input tensor's size at dimension {dim}), but got "
                               f"split_sizes={sizes}")
        return _split_by_sizes(tensor, sizes, dim, "SplitWithSizesBackward0", unsafe)
    size = int(split_size_or_sections)
    if size == 0 and n != 0:
        raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got dimension "
                           f"size of {n}")
    if size < 0:
        raise RuntimeError(f"split expects split_size be non-negative, but got split_size={size}")
    sizes = [size] * (n // size) + ([n % size] if n % size else []) if size else [0]
    return _split_by_sizes(tensor, sizes, dim, "SplitBackward0", unsafe)


def split_with_sizes(input: Tensor, split_sizes, dim: int = 0) -> tuple:
    """Split a tensor along `dim` into views of the listed sizes (they must add up to the
    dimension's size)."""
    return split(input, list(split_sizes), dim)


def chunk(input: Tensor, chunks: int, dim: int = 0) -> tuple:
    """Split a tensor along `dim` into `chunks` views of equal size (the last may be smaller, and
    fewer may come back)."""
    return _chunk(input, chunks, dim)


def unsafe_chunk(input: Tensor, chunks: int, dim: int = 0) -> tuple:
    """chunk into blocks that are not tracked as views of the input."""
    return _chunk(input, chunks, dim, unsafe=True)


def _chunk(input: Tensor, chunks: int, dim: int, unsafe: bool = False) -> tuple:
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    if input._data.ndim == 0:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    dim = input._wrap_dim(dim)
    n = input._data.shape[dim]
    if n == 0:  # torch gives `chunks` empty pieces
        return _split_by_sizes(input, [0] * chunks, dim, "SplitBackward0", unsafe)
    return _split(input, -(-n // chunks), dim, unsafe)


def unbind(input: Tensor, dim: int = 0) -> tuple:
    """The slices of a tensor along `dim`, as a tuple of views without that dimension."""
    if input._data.ndim == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    return Unbind.apply(input, input._wrap_dim(dim))


def tensor_split(input: Tensor, indices_or_sections, dim: int = 0) -> tuple:
    """Split a tensor along `dim` into n nearly equal views, or at the listed indices."""
    if input._data.ndim == 0:
        raise RuntimeError("tensor_split expected at least a 1-dimensional tensor, but got a "
                           "tensor with 0 dims")
    dim = input._wrap_dim(dim)
    n = input._data.shape[dim]
    spec = indices_or_sections
    if isinstance(spec, Tensor):
        spec = spec.tolist()
    if isinstance(spec, int):
        if spec <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {spec}")
        sizes = [n // spec + 1] * (n % spec) + [n // spec] * (spec - n % spec)
        bounds = np.cumsum([0] + sizes).tolist()
    else:
        bounds = [0] + [min(max(int(i) if i >= 0 else n + int(i), 0), n) for i in spec] + [n]
    lead = (slice(None),) * dim
    return tuple(index(input, lead + (slice(a, max(a, b)),))
                 for a, b in zip(bounds[:-1], bounds[1:]))


def _split_along(input: Tensor, sections, dim: int, op: str) -> tuple:
    if isinstance(sections, int) and input._data.shape[dim] % sections:
        raise RuntimeError(f"torch.{op} attempted to split along dimension {dim}, but the size "
                           f"of the dimension {input._data.shape[dim]} is not divisible by the "
                           f"split_size {sections}!")
    return tensor_split(input, sections, dim)


def hsplit(input: Tensor, sections) -> tuple:
    """Split a tensor horizontally (along dimension 1, or 0 when 1-D) by sections or indices."""
    if input._data.ndim == 0:
        raise RuntimeError("torch.hsplit requires a tensor with at least 1 dimension, but got a "
                           "tensor with 0 dimensions!")
    return _split_along(input, sections, 0 if input._data.ndim == 1 else 1, "hsplit")


def vsplit(input: Tensor, sections) -> tuple:
    """Split a tensor vertically (along dimension 0) by sections or indices."""
    if input._data.ndim < 2:
        raise RuntimeError(f"torch.vsplit requires a tensor with at least 2 dimension, but got "
                           f"a tensor with {input._data.ndim} dimensions!")
    return _split_along(input, sections, 0, "vsplit")


def dsplit(input: Tensor, sections) -> tuple:
    """Split a tensor depth-wise (along dimension 2) by sections or indices."""
    if input._data.ndim < 3:
        raise RuntimeError(f"torch.dsplit requires a tensor with at least 3 dimension, but got "
                           f"a tensor with {input._data.ndim} dimensions!")
    return _split_along(input, sections, 2, "dsplit")


# ---------------------------------------------------------------- matrices from pieces
def block_diag(*tensors) -> Tensor:
    """The tensors (at most 2-D each) along the diagonal of one matrix, zeros elsewhere."""
    blocks = []
    for i, t in enumerate(tensors):
        if t._data.ndim > 2:
            raise RuntimeError(f"torch.block_diag: Input tensors must have 2 or fewer "
                               f"dimensions. Input {i} has {t._data.ndim} dimensions")
        blocks.append(reshape(t, (1, -1)) if t._data.ndim < 2 else t)
    if not blocks:
        return zeros(1, 0)
    dtype = blocks[0].dtype
    for b in blocks[1:]:
        dtype = _dtype.promote_types(dtype, b.dtype)
    width = sum(b._data.shape[1] for b in blocks)
    rows, left = [], 0
    for b in blocks:
        height, cols = b._data.shape
        right = width - left - cols
        rows.append(cat([zeros(height, left, dtype=dtype), b.to(dtype),
                         zeros(height, right, dtype=dtype)], 1))
        left += cols
    return _named(cat(rows, 0), "BlockDiagBackward0")


def _check_vector(t: Tensor) -> None:
    if t._data.ndim != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(t._data.shape)}")


def cartesian_prod(*tensors) -> Tensor:
    """Every tuple (a, b, ...) with a from the first vector, b from the second ..., as rows."""
    for t in tensors:
        _check_vector(t)
    if len(tensors) == 1:
        return tensors[0]
    from .shape import meshgrid
    return stack([g.reshape(-1) for g in meshgrid(*tensors, indexing="ij")], 1)


def combinations(input: Tensor, r: int = 2, with_replacement: bool = False) -> Tensor:
    """The length-r combinations of a vector's elements, one per row, in itertools' order."""
    _check_vector(input)
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return zeros(0, dtype=input.dtype)
    pick = itertools.combinations_with_replacement if with_replacement else \
        itertools.combinations
    rows = np.array(list(pick(range(input._data.shape[0]), r)), dtype=np.int64).reshape(-1, r)
    return _named(Index.apply(input, rows), "StackBackward0")


def vander(x: Tensor, N: int | None = None, increasing: bool = False) -> Tensor:
    """Columns x^(N-1), ..., x, 1 (or the reverse with increasing); integers become int64."""
    if x._data.ndim != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    n = x._data.shape[0] if N is None else N
    if n < 0:
        raise RuntimeError("N must be non-negative.")
    if not (x.is_floating_point() or x.is_complex()):
        x = x.to(_dtype.int64)
    column_of_ones = ones(x._data.shape[0], min(n, 1), dtype=x.dtype)
    if n <= 1:
        return column_of_ones  # a constant, as in torch
    # Running products of [1, x, x, ...] rather than pow: finite gradients at x = 0.
    factors = cat([column_of_ones, unsqueeze(x, 1).expand(-1, n - 1)], 1)
    powers = factors.cumprod(1)
    return powers if increasing else powers.flip(1)
