"""LinearCrossEntropyLoss: a Linear layer to class logits and cross entropy in one module."""
from __future__ import annotations

import math

from ..._tensor import Tensor
from ..functional.linear_cross_entropy import linear_cross_entropy
from .linear import Linear
from .linear_cross_entropy_options import LinearCrossEntropyOptions
from .loss import _WeightedLoss

__all__ = ["LinearCrossEntropyLoss", "LinearCrossEntropyOptions"]


class LinearCrossEntropyLoss(_WeightedLoss):
    """cross_entropy(linear(input), target) with the Linear layer owned by the loss.

    `linear` is an ordinary Linear(in_features, num_classes * prod(out_features)):
    its weight is stored flat and reshaped to (num_classes, *out_features, in_features)
    in forward, so a non-empty out_features gives a K-dimensional loss."""

    def __init__(self, in_features: int, num_classes: int, *, out_features: tuple = (),
                 bias: bool = False, device=None, dtype=None, reduction: str = "mean",
                 weight: Tensor | None = None, ignore_index: int | None = None,
                 label_smoothing: float = 0.0,
                 options: LinearCrossEntropyOptions | None = None) -> None:
        if weight is not None and weight.shape != (num_classes,):
            raise RuntimeError(f"expected weight shape to be {(num_classes,)}, got "
                               f"{tuple(weight.shape)}")
        if label_smoothing < 0 or label_smoothing > 1.0:
            raise RuntimeError("expected label_smoothing to be in range [0, 1], got "
                               f"{label_smoothing}")
        super().__init__(weight=weight, reduction=reduction)
        self.num_classes = num_classes
        self.out_features = out_features
        self.ignore_index = ignore_index
        self.label_smoothing = label_smoothing
        self.linear = Linear(in_features, math.prod(out_features, start=num_classes),
                             bias=bias, device=device, dtype=dtype)
        self.options = options

    def forward(self, input: Tensor, target: Tensor) -> Tensor:
        class_shape = (self.num_classes, *self.out_features)
        bias = self.linear.bias
        return linear_cross_entropy(
            input, self.linear.weight.reshape((*class_shape, self.linear.in_features)), target,
            linear_bias=None if bias is None else bias.reshape(class_shape),
            weight=self.weight, reduction=self.reduction, ignore_index=self.ignore_index,
            label_smoothing=self.label_smoothing, options=self.options)

    def extra_repr(self) -> str:
        return (f"in_features={self.linear.in_features}, num_classes={self.num_classes}, "
                f"out_features={self.out_features}, bias={self.linear.bias is not None}, "
                f"reduction={self.reduction}, ignore_index={self.ignore_index}, "
                f"label_smoothing={self.label_smoothing}, options={self.options}")
