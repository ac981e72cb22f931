"""Shape and stride arithmetic for data-less arrays: the row-major strides torch gives a new
tensor, the strides of a reshape that can stay a view, and contiguity as torch defines it.
Strides here are in bytes, as NumPy's are (Tensor.stride() divides by the item size)."""
from __future__ import annotations

import math


def contiguous_strides(shape: tuple, itemsize: int) -> tuple:
    """Row-major strides in bytes; a size-0 or size-1 dim counts as 1 for the dims before it,
    as in torch (empty(2, 0, 3).stride() == (3, 3, 1))."""
    strides, step = [], itemsize
    for n in reversed(shape):
        strides.append(step)
        step *= max(n, 1)
    return tuple(reversed(strides))


def is_contiguous(shape: tuple, strides: tuple, itemsize: int) -> bool:
    """torch's is_contiguous(): row-major, ignoring the strides of size-1 dims; every empty
    tensor is contiguous."""
    if 0 in shape:
        return True
    expected = itemsize
    for n, s in zip(reversed(shape), reversed(strides)):
        if n != 1:
            if s != expected:
                return False
            expected *= n
    return True


def layout_like(shape: tuple, itemsize: int, template_shape: tuple,
                template_strides: tuple) -> tuple:
    """Strides for a new array of `shape` that keeps the dimension order of a template of the
    same shape (a pointwise op on a transposed tensor gives a transposed result, as in torch
    and NumPy); row-major when the template has no dense layout to follow."""
    if template_shape != shape or is_contiguous(template_shape, template_strides, 1):
        return contiguous_strides(shape, itemsize)
    order = sorted(range(len(shape)), key=lambda d: (abs(template_strides[d]), -d))
    strides, step = [0] * len(shape), itemsize
    for d in order:                     # innermost dimension first
        strides[d] = step
        step *= max(shape[d], 1)
    if sorted(abs(s) for s in template_strides if s) != sorted(
            s for s, n in zip(strides, shape) if n != 1 and s) or 0 in template_strides:
        return contiguous_strides(shape, itemsize)
    return tuple(strides)


def with_new_dims(shape: list, strides: list, new: list, itemsize: int) -> tuple:
    """Strides with torch's values at the inserted size-1 dims `new` (unsqueeze, None in an
    index): the span of the dim that follows, or one element for a new last dim."""
    strides = list(strides)
    for d in sorted(new, reverse=True):
        strides[d] = shape[d + 1] * strides[d + 1] if d + 1 < len(shape) else itemsize
    return tuple(strides)


def view_strides(shape: tuple, strides: tuple, new_shape: tuple, itemsize: int) -> tuple | None:
    """The strides of `new_shape` as a view of an array with (shape, strides), or None when no
    view exists (the new dims would have to cut across a block that is not laid out evenly).

    Walk both shapes from the innermost dim out. The old dims group into blocks whose memory is
    one even run (a dim's stride equals the next dim's stride times its size); each new dim
    must fall inside one block, taking strides from the block's innermost stride upwards."""
    if math.prod(shape) == 0:
        return strides if tuple(shape) == tuple(new_shape) else \
            contiguous_strides(new_shape, itemsize)
    if not shape:                       # a 0-dim array viewed as (1, 1, ...)
        return (itemsize,) * len(new_shape)
    new_strides = [0] * len(new_shape)
    d_new = len(new_shape) - 1
    block_stride = strides[-1]
    block_numel = new_numel = 1
    for d_old in range(len(shape) - 1, -1, -1):
        block_numel *= shape[d_old]
        block_ends = d_old == 0 or (shape[d_old - 1] != 1 and
                                    strides[d_old - 1] != block_numel * block_stride)
        if not block_ends:
            continue
        while d_new >= 0 and (new_numel < block_numel or new_shape[d_new] == 1):
            new_strides[d_new] = new_numel * block_stride
            new_numel *= new_shape[d_new]
            d_new -= 1
        if new_numel != block_numel:
            return None
        if d_old > 0:
            block_stride = strides[d_old - 1]
            block_numel = new_numel = 1
    return tuple(new_strides) if d_new == -1 else None
