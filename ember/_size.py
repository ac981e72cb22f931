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
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = size[0]
    dims = []
    for pos, s in enumerate(size):
        if _is_integer_tensor_scalar(s):
            s = s.item()
        if not isinstance(s, (int, np.integer)) or isinstance(s, bool):
            raise TypeError(f"{name}(): argument 'size' failed to unpack the object at pos "
                            f"{pos + 1} with error \"type must be tuple of ints,but got "
                            f"{type(s).__name__}\"")
        dims.append(int(s))
    if any(s < 0 for s in dims):
        raise RuntimeError(f"Trying to create tensor with negative dimension "
                           f"{min(dims)}: {dims}")
    return tuple(dims)
