"""Argument checks and small helpers shared by torch.linalg's functions."""
from __future__ import annotations

import numpy as np

from .._tensor import Tensor


def _type_name(t: Tensor) -> str:
    return t.dtype.scalar_name


def _check_float(t: Tensor, name: str) -> None:
    if not (t.is_floating_point() or t.is_complex()):
        raise RuntimeError(f"linalg.{name}: Expected a floating point or complex tensor as "
                           f"input. Got {_type_name(t)}")


def _check_square(t: Tensor, name: str) -> None:
    _check_float(t, name)
    if t.ndim < 2:
        raise RuntimeError(f"linalg.{name}: The input tensor A must have at least 2 "
                           "dimensions.")
    if t.shape[-1] != t.shape[-2]:
        raise RuntimeError(f"linalg.{name}: A must be batches of square matrices, but they "
                           f"are {t.shape[-2]} by {t.shape[-1]} matrices")


def _const(array: np.ndarray, like: Tensor) -> Tensor:
    """A gradient-free tensor in `like`'s dtype (for arrays a Function's forward kept: a
    compiled plan finds them in the node; a constant computed from values would be kept
    from the traced call, so those are made with ops or replayed calls)."""
    return Tensor._wrap(np.asarray(array, dtype=like._data.dtype))


def _identity(n: int, like: Tensor) -> Tensor:
    """The n x n identity in `like`'s dtype, made by an op (a plan replays it)."""
    from ..ops.creation import eye
    return eye(n, dtype=like.dtype)


def _matrices(t: Tensor) -> Tensor:
    return t.unsqueeze(-1).unsqueeze(-1)
