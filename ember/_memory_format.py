"""torch.memory_format objects, and the memory layouts they name.

A tensor's values are the same in every layout; the format says in which order they
sit in memory, which only strides show (and speed, in a library with layout-aware
kernels). ember keeps each tensor as a NumPy array, whose strides can describe any of
these orders:

    contiguous_format   row-major, the last dim varies fastest: (N, C, H, W) memory
    channels_last       the channels vary fastest: memory ordered (N, H, W, C)
    channels_last_3d    the same for 5-d tensors: memory ordered (N, D, H, W, C)
    preserve_format     keep the source's order (NumPy's order='K': torch infers dense
                        strides from the source's the same way)
"""
from __future__ import annotations

import numpy as np

from ._cpu.transpose import contiguous as transposed_copy


class memory_format:
    """How a tensor's dimensions are ordered in memory; its instances are ember.contiguous_format,
    channels_last, channels_last_3d and preserve_format."""
    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name

    def __repr__(self) -> str:
        return "torch." + self.name

    def __reduce__(self):
        return (_by_name, (self.name,))


def _by_name(name: str) -> memory_format:
    return globals()[name]


contiguous_format = memory_format("contiguous_format")
preserve_format = memory_format("preserve_format")
channels_last = memory_format("channels_last")
channels_last_3d = memory_format("channels_last_3d")

# The channels-last formats: the rank they need, and the dims from the outermost in
# memory to the innermost.
_CHANNELS_LAST = {channels_last: (4, (0, 2, 3, 1)), channels_last_3d: (5, (0, 2, 3, 4, 1))}


def check_format(fmt, function: str) -> None:
    """torch's TypeError for a memory_format argument that is not one."""
    if not isinstance(fmt, memory_format):
        raise TypeError(f"{function}(): argument 'memory_format' must be torch.memory_format, "
                        f"not {type(fmt).__name__}")


def memory_order(fmt: memory_format, ndim: int) -> tuple | None:
    """The dims of an `ndim`-d tensor from the outermost in memory to the innermost, for a
    channels-last format (torch's RuntimeError for the wrong rank); None otherwise."""
    if fmt not in _CHANNELS_LAST:
        return None
    rank, order = _CHANNELS_LAST[fmt]
    if ndim != rank:
        raise RuntimeError(f"required rank {rank} tensor to use {fmt.name} format")
    return order


def is_contiguous_as(array: np.ndarray, fmt) -> bool:
    """Whether `array`'s strides are dense in the memory order of `fmt` (dims of size 1
    may have any stride, as in torch). Non-channels-last formats ask for row-major."""
    if fmt not in _CHANNELS_LAST:
        return array.flags.c_contiguous
    rank, order = _CHANNELS_LAST[fmt]
    if array.ndim != rank:
        return False
    expected = array.itemsize
    for dim in reversed(order):
        size = array.shape[dim]
        if size != 1:
            if array.strides[dim] != expected:
                return False
            expected *= size
    return True


def suggested_format(array: np.ndarray) -> memory_format:
    """The format `array`'s strides suggest: a channels-last one when they step like it,
    else contiguous_format. Tensor.to aliases a tensor whose suggestion is the asked
    format, and convolution and pooling give their output the input's suggestion."""
    for fmt, (rank, order) in _CHANNELS_LAST.items():
        if array.ndim == rank and _strides_step_like(array, order):
            return fmt
    return contiguous_format


def _strides_step_like(array: np.ndarray, order: tuple) -> bool:
    """Whether the strides grow from the innermost dim of `order` outwards, each at least
    the span of the dim inside it. Ambiguous layouts (e.g. an (N, 1, 1, 1) tensor, whose
    strides fit every order) count as row-major, as in torch."""
    channels = order[-1]
    if array.strides[channels] == 0:
        return False
    floor = 0
    for dim in reversed(order):
        stride = array.strides[dim]
        if array.shape[dim] == 0 or stride < floor:
            return False
        if dim == order[0] and floor == array.strides[channels]:
            return False
        floor = stride * max(array.shape[dim], 1)
    return True


def format_of(*arrays: np.ndarray) -> memory_format:
    """The first channels-last format among the arrays' suggestions, else
    contiguous_format: the layout torch's convolutions give their output."""
    for array in arrays:
        fmt = suggested_format(array)
        if fmt is not contiguous_format:
            return fmt
    return contiguous_format


def as_format(array: np.ndarray, fmt: memory_format) -> np.ndarray:
    """A row-major op result in `fmt`: itself for contiguous_format, else a copy."""
    return array if fmt is contiguous_format else in_format(array, fmt)


def empty_as(shape, dtype, fmt: memory_format) -> np.ndarray:
    """An uninitialised array in the layout `fmt` (contiguous or channels-last)."""
    order = memory_order(fmt, len(shape))
    if order is None:
        return np.empty(shape, dtype=dtype)
    stored = np.empty(tuple(shape[d] for d in order), dtype=dtype)
    return stored.transpose(np.argsort(order))


def in_format(array: np.ndarray, fmt) -> np.ndarray:
    """A copy of `array` laid out in `fmt` (None or preserve_format: `array`'s order)."""
    if fmt is None or fmt is preserve_format:
        return array.copy(order="K")
    order = memory_order(fmt, array.ndim) or tuple(range(array.ndim))
    stored_view = array.transpose(order)
    stored = transposed_copy(stored_view)
    if stored is stored_view:
        stored = stored_view.copy()
    return stored.transpose(np.argsort(order))


def like_layout(data: np.ndarray, fmt, like: np.ndarray, function: str) -> np.ndarray:
    """A factory's row-major result `data` laid out as `function` (zeros_like, rand_like,
    ...) gives it: in `fmt`, or for preserve_format in the order of `like`'s strides."""
    check_format(fmt, function)
    if fmt is preserve_format:
        return data if like.flags.c_contiguous else _copy_in_order_of(data, like)
    return data if fmt is contiguous_format else in_format(data, fmt)


def _copy_in_order_of(data: np.ndarray, like: np.ndarray) -> np.ndarray:
    """A copy of `data` whose strides follow the order of `like`'s (NumPy's order='K')."""
    out = np.empty_like(like, dtype=data.dtype, order="K")
    np.copyto(out, data)
    return out


def new_layout(data: np.ndarray, fmt, function: str) -> np.ndarray:
    """A new tensor's row-major array `data` laid out in `fmt` (torch.empty's argument)."""
    check_format(fmt, function)
    if fmt is preserve_format:
        raise RuntimeError("unsupported memory format Preserve")
    return data if fmt is contiguous_format else in_format(data, fmt)


def fill_order(shape: tuple, strides: tuple) -> tuple | None:
    """The dims, outermost first, of a dense tensor that is not row-major (a permutation of
    a contiguous block, such as a transpose or channels_last): empty_like keeps such a
    layout and torch's kernels draw into it in memory order. None for a row-major or a
    non-dense tensor (its empty_like is row-major)."""
    expected = 1
    for dim in sorted(range(len(shape)), key=lambda d: (abs(strides[d]), d)):
        if shape[dim] == 1:
            continue
        if abs(strides[dim]) != expected:
            return None
        expected *= shape[dim]
    order = tuple(sorted(range(len(shape)), key=lambda d: -abs(strides[d])))
    sized = [d for d in order if shape[d] != 1]
    return None if sized == sorted(sized) else order


def _is_dense(array: np.ndarray) -> bool:
    """Whether `array` covers its memory exactly once: a permutation of a contiguous block."""
    expected = array.itemsize
    for stride, size in sorted((abs(st), n) for st, n in zip(array.strides, array.shape)
                               if n != 1):
        if stride != expected:
            return False
        expected *= size
    return True


def grad_layout_for(array: np.ndarray):
    """The strides a leaf's .grad should have (torch's layout contract): the leaf's own
    when its memory is dense (a channels-last weight gets a channels-last gradient), else
    row-major's (None)."""
    if array.flags.c_contiguous or not _is_dense(array):
        return None
    return array.strides


def follows_layout(grad: np.ndarray, strides) -> bool:
    """Whether `grad` is laid out as grad_layout_for asked (size-1 dims aside)."""
    if strides is None:
        return grad.flags.c_contiguous
    return all(a == b for a, b, n in zip(grad.strides, strides, grad.shape) if n != 1)


def copy_with_layout(grad: np.ndarray, like: np.ndarray, strides) -> np.ndarray:
    """A copy of `grad` with the layout grad_layout_for(like) gave as `strides`."""
    if strides is None:
        return in_format(grad, contiguous_format)
    return _copy_in_order_of(grad, like)
