"""Argument checks shared by several functional families."""
from __future__ import annotations

from ..._tensor import Tensor
from ...ops.pointwise import scalar_type_name


def require_floating(input: Tensor, kernel: str) -> None:
    """Raise torch's error for a kernel that has no integer or bool implementation."""
    if not input.is_floating_point():
        raise NotImplementedError(f'"{kernel}" not implemented for '
                                  f"'{scalar_type_name(input.dtype)}'")
