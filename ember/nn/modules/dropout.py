"""Dropout layers: each stores p and inplace and calls its F.<dropout> in training mode."""
from __future__ import annotations

from ..._tensor import Tensor
from .. import functional as F
from .module import Module

__all__ = ["Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "AlphaDropout",
           "FeatureAlphaDropout"]


class _DropoutNd(Module):
    function = None

    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p = p
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return type(self).function(input, self.p, self.training, self.inplace)

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"


class Dropout(_DropoutNd):
    """In training mode, zeroes each element with probability p and scales the rest by 1 / (1 - p);
    the identity in eval mode."""
    function = staticmethod(F.dropout)


class Dropout1d(_DropoutNd):
    """In training mode, zeroes whole channels of (N, C, L) or (C, L) input with probability p and
    scales the rest by 1 / (1 - p)."""
    function = staticmethod(F.dropout1d)


class Dropout2d(_DropoutNd):
    """In training mode, zeroes whole channels (feature maps) of (N, C, H, W) input with probability
    p and scales the rest by 1 / (1 - p)."""
    function = staticmethod(F.dropout2d)


class Dropout3d(_DropoutNd):
    """In training mode, zeroes whole channels of (N, C, D, H, W) input with probability p and
    scales the rest by 1 / (1 - p)."""
    function = staticmethod(F.dropout3d)


class AlphaDropout(_DropoutNd):
    """Dropout for SELU networks: keeps the input's mean and variance (see
    functional.alpha_dropout); the identity in eval mode."""
    function = staticmethod(F.alpha_dropout)


class FeatureAlphaDropout(_DropoutNd):
    """Alpha dropout of whole channels (see functional.feature_alpha_dropout); the identity in eval
    mode."""
    function = staticmethod(F.feature_alpha_dropout)
