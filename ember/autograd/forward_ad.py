"""torch.autograd.forward_ad: forward-mode automatic differentiation with dual tensors.

Inside a `dual_level()`, `make_dual(x, v)` pairs a tensor with a tangent; every op on it
computes, next to its result, the tangent of the result (the Jacobian-vector product J v),
and `unpack_dual(y)` returns both. As in torch, one level can be open at a time through
this API (torch.func.jvp nests levels of its own); the tangents are dropped when it exits.
How tangents are propagated: ember/autograd/_forward/.

    with forward_ad.dual_level():
        y = f(forward_ad.make_dual(x, v))
        value, jvp = forward_ad.unpack_dual(y)
"""
from __future__ import annotations

import functools
from typing import NamedTuple

import numpy as np

from .._modes import own as own_modes
from .._tensor import Tensor
from ._forward import dual

__all__ = ["UnpackedDualTensor", "enter_dual_level", "exit_dual_level", "make_dual",
           "unpack_dual", "dual_level"]


def _current_level() -> int:
    levels = dual.open_levels()
    return levels[-1].number if levels else -1


def _level(level, api: str):
    """The open DualLevel numbered `level` (the innermost when None), or None."""
    if level is None:
        level = _current_level()
    if not isinstance(level, int) or isinstance(level, bool):
        raise TypeError(f"{api}(): argument 'level' must be int, not {type(level).__name__}")
    levels = dual.open_levels()
    return levels[level] if 0 <= level < len(levels) else level


def enter_dual_level() -> int:
    """Open a forward-AD level and return its number; make_dual and unpack_dual use it
    by default. Only one level can be open at a time."""
    if dual.open_levels():
        raise RuntimeError("Nested forward mode AD is not supported at the moment")
    return dual.open_level().number


def exit_dual_level(*, level=None) -> None:
    """Close the forward-AD level (the last one opened); its tangents are deleted."""
    current = _current_level()
    if level is None:
        level = current
    if level < 0:
        raise RuntimeError("Dual level must be a positive number.")
    if level != current:
        raise RuntimeError("Trying to exit a forward AD level that was not the last one that "
                           "was created. This is not supported.")
    dual.close_level(dual.open_levels()[-1])


def make_dual(tensor: Tensor, tangent: Tensor, *, level=None) -> Tensor:
    """A new tensor aliasing `tensor` (a view of it) with `tangent` as its forward
    gradient at the level: the tangent is kept as it is when it is laid out in memory like
    `tensor`, copied into that layout otherwise. Differentiable in reverse mode."""
    found = _level(level, "_make_dual")
    if isinstance(found, int):
        if found < 0:
            raise RuntimeError("Trying to create a dual Tensor for forward AD but no level "
                               "exists, make sure to enter_dual_level() first.")
        raise RuntimeError("Invalid level given to _make_dual")
    for name, value in (("primal", tensor), ("tangent", tangent)):
        if not (value.is_floating_point() or value.is_complex()):
            raise ValueError(f"Expected {name} to be floating point or complex, but got: "
                             f"{value.dtype}")
    if tangent.shape != tensor.shape:
        raise RuntimeError("Trying to set a forward gradient that has a different size than "
                           "that of the original Tensor, this is not supported. Tensor is of "
                           f"size {list(tensor.shape)} while the given forward gradient is of "
                           f"size {list(tangent.shape)}.")
    if found.tangent(tensor) is not None:
        raise RuntimeError("Making a dual Tensor based on a Tensor that already has a forward "
                           f"gradient at the same level {found.number} is not supported.")
    if tangent._data.strides != tensor._data.strides:
        laid_out = Tensor._wrap(np.empty_like(tensor._data, dtype=tangent._data.dtype))
        tangent = laid_out.copy_(tangent)
    result = _outside(found, lambda: tensor.view(tensor.shape))
    found.set_tangent(result, tangent)
    return result


class UnpackedDualTensor(NamedTuple):
    """What unpack_dual returns: the primal and the tangent (None without one)."""

    primal: Tensor
    tangent: Tensor | None


def unpack_dual(tensor: Tensor, *, level=None) -> UnpackedDualTensor:
    """(primal, tangent) of a dual tensor at the level: the primal is a view of `tensor`
    without this level's tangent, the tangent is the tensor's forward gradient as it is
    (None outside the level, or for a tensor without one). Differentiable in reverse mode."""
    found = _level(level, "_unpack_dual")
    if isinstance(found, int):
        return UnpackedDualTensor(tensor, None)
    tangent = found.tangent(tensor)
    if tangent is None:
        return UnpackedDualTensor(tensor, None)
    return UnpackedDualTensor(_outside(found, lambda: tensor.view(tensor.shape)), tangent)


def _outside(level: dual.DualLevel, compute):
    """compute() with `level` (and any level inside it) out of the way: outer levels still
    see the ops, so the result keeps their tangents."""
    modes = own_modes()
    installed = modes.recorder
    modes.recorder = level.inner
    try:
        return compute()
    finally:
        modes.recorder = installed


class dual_level:
    """Context manager (and decorator) opening a forward-AD level for its block: make_dual
    and unpack_dual work inside, and the tangents are deleted on exit. Entering returns
    the level's number."""

    def __enter__(self) -> int:
        return enter_dual_level()

    def __exit__(self, *exc) -> None:
        exit_dual_level()

    def __call__(self, fn):
        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with dual_level():
                return fn(*args, **kwargs)
        return wrapper
