"""Padding layers: constant (and zero), reflection, replication and circular, over F.pad."""
from __future__ import annotations

from ..._tensor import Tensor
from .. import functional as F
from .module import Module

__all__ = ["ConstantPad1d", "ConstantPad2d", "ConstantPad3d", "ZeroPad1d", "ZeroPad2d",
           "ZeroPad3d", "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d",
           "ReplicationPad1d", "ReplicationPad2d", "ReplicationPad3d", "CircularPad1d",
           "CircularPad2d", "CircularPad3d"]


def _pads(padding, dims: int) -> tuple:
    """An int as 2*dims equal pads; a sequence as a tuple (F.pad's order)."""
    return tuple(padding) if isinstance(padding, (tuple, list)) else (padding,) * (2 * dims)


class _PadNd(Module):
    _dims = 0
    mode = ""

    def __init__(self, padding) -> None:
        super().__init__()
        self.padding = _pads(padding, self._dims)

    def forward(self, input: Tensor) -> Tensor:
        return F.pad(input, self.padding, self.mode)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class _ReflectionPadNd(_PadNd):
    mode = "reflect"


class _ReplicationPadNd(_PadNd):
    mode = "replicate"


class _CircularPadNd(_PadNd):
    mode = "circular"

    def forward(self, input: Tensor) -> Tensor:
        n = self._dims
        if input.dim() not in (n + 1, n + 2):
            raise ValueError(f"expected {n + 1}D or {n + 2}D input (got {input.dim()}D input)")
        return F.pad(input, self.padding, "circular")


class _ConstantPadNd(_PadNd):
    mode = "constant"

    def __init__(self, padding, value: float) -> None:
        super().__init__(padding)
        self.value = value

    def forward(self, input: Tensor) -> Tensor:
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self) -> str:
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPadNd):
    """Pad the last dimension with `value`; padding is an int or (left, right)."""
    _dims = 1


class ConstantPad2d(_ConstantPadNd):
    """Pad the last two dimensions with `value`; padding is an int or (left, right, top, bottom)."""
    _dims = 2


class ConstantPad3d(_ConstantPadNd):
    """Pad the last three dimensions with `value`; padding is an int or a 6-tuple."""
    _dims = 3


class _ZeroPad:
    """Mixin turning ConstantPadNd into ZeroPadNd (value 0, shorter repr)."""

    def __init__(self, padding) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ZeroPad1d(_ZeroPad, ConstantPad1d):
    """Pad the last 1 dimension with zeros."""


class ZeroPad2d(_ZeroPad, ConstantPad2d):
    """Pad the last 2 dimensions with zeros."""


class ZeroPad3d(_ZeroPad, ConstantPad3d):
    """Pad the last 3 dimensions with zeros."""


class ReflectionPad1d(_ReflectionPadNd):
    """Pad the last dimension with its reflection (mirror excluding the edge)."""
    _dims = 1


class ReflectionPad2d(_ReflectionPadNd):
    """Pad the last two dimensions with their reflection (mirror excluding the edge)."""
    _dims = 2


class ReflectionPad3d(_ReflectionPadNd):
    """Pad the last three dimensions with their reflection."""
    _dims = 3


class ReplicationPad1d(_ReplicationPadNd):
    """Pad the last dimension by repeating its edge values."""
    _dims = 1


class ReplicationPad2d(_ReplicationPadNd):
    """Pad the last two dimensions by repeating their edge values."""
    _dims = 2


class ReplicationPad3d(_ReplicationPadNd):
    """Pad the last three dimensions by repeating their edge values."""
    _dims = 3


class CircularPad1d(_CircularPadNd):
    """Pad the last dimension circularly (wrapping values around from the other end)."""
    _dims = 1


class CircularPad2d(_CircularPadNd):
    """Pad the last two dimensions circularly."""
    _dims = 2


class CircularPad3d(_CircularPadNd):
    """Pad the last three dimensions circularly."""
    _dims = 3
