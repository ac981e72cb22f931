"""Argument checks shared by several functional families."""
from __future__ import annotations

import numpy as np

from ..._dtype import from_numpy_dtype
from ..._tensor import Tensor


def require_floating(input: Tensor | np.ndarray, kernel: str) -> None:
    """Raise torch's error for a kernel that has no integer or bool implementation."""
    dtype = input.dtype if isinstance(input, Tensor) else from_numpy_dtype(input.dtype)
    if not dtype.is_floating_point:
        raise NotImplementedError(f'"{kernel}" not implemented for \'{dtype.scalar_name}\'')
