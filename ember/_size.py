"""torch.Size: a tuple of ints that prints as `torch.Size([2, 3])`."""
from __future__ import annotations

import math

import numpy as np


class Size(tuple):
    """The shape of a tensor: a tuple of ints (what tensor.shape and tensor.size() return), with
    numel() for the product."""
    __slots__ = ()

    def __repr__(self) -> str:
        return f"torch.Size({list(self)})"

    def numel(self) -> int:
        return math.prod(self)

    def __getitem__(self, key):
        result = tuple.__getitem__(self, key)
        return Size(result) if isinstance(key, slice) else result

    def __add__(self, other):
        return Size(tuple.__add__(self, tuple(other)))

    def __radd__(self, other):  # (1,) + size is a Size too, as in torch
        return Size(tuple(other) + tuple(self))

    def __reduce__(self):
        return (Size, (tuple(self),))


def contiguous_strides(shape: tuple) -> tuple:
    """The strides, in elements, of a C-contiguous tensor of `shape` (a dimension of size 0
    or 1 gets the stride torch gives it)."""
    strides, step = [], 1
    for n in reversed(shape):
        strides.append(step)
        step *= max(n, 1)
    return tuple(reversed(strides))


def _is_integer_tensor_scalar(s) -> bool:
    """A one-element integer tensor, which torch accepts as a size (told by its methods:
    this module sits below the tensor)."""
    return (hasattr(s, "is_floating_point") and hasattr(s, "numel") and s.numel() == 1
            and not s.is_floating_point())


def size_from_args(size, name: str = "empty") -> tuple:
    """Accept f(2, 3), f((2, 3)), f([2, 3]) and f(torch.Size([2, 3]))."""
    one_sequence = len(size) == 1 and isinstance(size[0], (tuple, list))
    if one_sequence:
        size = size[0]
    dims = []
    for pos, s in enumerate(size):
        if _is_integer_tensor_scalar(s):
            s = s.item()
        if not isinstance(s, (int, np.integer)) or isinstance(s, bool):
            raise TypeError(_not_a_size_message(name, size, pos, one_sequence))
        dims.append(int(s))
    if any(s < 0 for s in dims):
        raise RuntimeError(f"Trying to create tensor with negative dimension "
                           f"{min(dims)}: {dims}")
    return tuple(dims)


def _not_a_size_message(name: str, size, pos: int, one_sequence: bool) -> str:
    """torch's words for a size element that is not an int, which depend on where it sits
    (torch's argument parser first tries to read the whole argument as a size)."""
    kind = type(size[pos]).__name__
    if pos > 0:
        message = (f"{name}(): argument 'size' failed to unpack the object at pos {pos + 1} "
                   f"with error \"type must be tuple of ints,but got {kind}\"")
    elif one_sequence:
        message = (f"{name}(): argument 'size' (position 1) must be tuple of ints, but found "
                   f"element of type {kind} at pos 0")
    elif len(size) > 1:
        message = f"{name}() takes 1 positional argument but {len(size)} were given"
    else:
        message = f"{name}(): argument 'size' (position 1) must be tuple of ints, not {kind}"
    if isinstance(size[pos], float):
        message += (". Sizes are ints: a size computed with `/` is a float even when it "
                    "divides evenly; use `//` or int()")
    return message
