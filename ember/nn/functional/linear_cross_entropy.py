"""linear_cross_entropy: cross_entropy(linear(input, weight, bias), target) in one call.

The reference path computes exactly that. Given `options` (LinearCrossEntropyOptions),
the batch is processed `batch_chunk_size` rows at a time, each chunk under
checkpoint: its logits are dropped after forward and recomputed in backward, so the
full (batch, num_classes) logits never exist at once. The values are the same.
"""
from __future__ import annotations

import math
import warnings

from ... import _dtype
from ..._tensor import Tensor
from ...autograd.grad_mode import no_grad
from ...ops.joining import cat
from ...utils.checkpoint import checkpoint
from .linear import linear
from .loss import cross_entropy

__all__ = ["linear_cross_entropy"]


def _check_shapes(input: Tensor, linear_weight: Tensor, linear_bias: Tensor | None) -> None:
    """torch's checks of input, linear_weight and linear_bias against each other."""
    if input.dim() < 1 or input.dim() > 2:
        raise RuntimeError(f"expected input with dimensionality 1 or 2, got {input.dim()}")
    if linear_weight.dim() < 2:
        raise RuntimeError("expected linear_weight with dimensionality at least 2, got "
                           f"{linear_weight.dim()}")
    in_features = input.shape[-1]
    if in_features != linear_weight.shape[-1]:
        raise RuntimeError("expected equal input and linear_weight last dimensions "
                           f"(in_features), got {in_features} and {linear_weight.shape[-1]}, "
                           "respectively")
    class_shape = tuple(linear_weight.shape[:-1])
    if linear_bias is not None and tuple(linear_bias.shape) != class_shape:
        raise RuntimeError(f"expected linear_bias shape {class_shape}, got "
                           f"{tuple(linear_bias.shape)}")
    if len(class_shape) > 1 and input.dim() == 1:
        raise RuntimeError(f"K-dimensional loss defined by linear_weight shape "
                           f"{tuple(linear_weight.shape)} requires batched input, "
                           f"(N, {in_features}), got unbatched input with shape "
                           f"{tuple(input.shape)}")


def _chunkable(target: Tensor, out_features: tuple, reduction: str,
               label_smoothing: float) -> bool:
    """Whether the chunked path supports this call (else options are ignored)."""
    return (not out_features and reduction in ("mean", "sum", "none")
            and label_smoothing == 0.0 and target.dtype is _dtype.int64)


def _weight_total(target: Tensor, weight: Tensor | None, ignore_index: int,
                  dtype) -> Tensor:
    """The divisor of reduction='mean': the summed class weights of the kept targets."""
    with no_grad():
        kept = target != ignore_index
        if weight is None:
            return kept.sum().to(dtype)
        return (weight.detach()[target.where(kept, 0)] * kept).sum().to(dtype)


def _chunked(input: Tensor, linear_weight: Tensor, target: Tensor, linear_bias: Tensor | None,
             weight: Tensor | None, reduction: str, ignore_index: int, options) -> Tensor:
    """linear + cross_entropy over row chunks of a 2-D input (see the module docstring)."""
    if options.acc_dtype not in (None, input.dtype):
        raise NotImplementedError(f"linear_cross_entropy: options.acc_dtype={options.acc_dtype} "
                                  f"with {input.dtype} input is not supported by ember, which "
                                  "accumulates in the input dtype; pass acc_dtype=None")
    rows, in_features = input.shape
    size = options._chunk_size(rows, in_features, linear_weight.shape[0], input.dtype)
    chunk_reduction = "none" if reduction == "none" else "sum"

    def chunk_loss(x: Tensor, w: Tensor, b: Tensor | None, t: Tensor) -> Tensor:
        return cross_entropy(linear(x, w, b), t, weight=weight, ignore_index=ignore_index,
                             reduction=chunk_reduction)

    losses = [checkpoint(chunk_loss, input[start:start + size], linear_weight, linear_bias,
                         target[start:start + size], use_reentrant=False)
              for start in range(0, max(rows, 1), size)]
    if reduction == "none":
        return cat(losses)
    total = sum(losses[1:], losses[0])
    if reduction == "sum":
        return total
    return total / _weight_total(target, weight, ignore_index, input.dtype)


def linear_cross_entropy(input: Tensor, linear_weight: Tensor, target: Tensor, *,
                         linear_bias: Tensor | None = None, weight: Tensor | None = None,
                         reduction: str = "mean", ignore_index: int | None = None,
                         label_smoothing: float = 0.0, options=None) -> Tensor:
    """cross_entropy(linear(input, linear_weight, linear_bias), target, ...).

    linear_weight is (C, in_features) or (C, d_1, ..., d_K, in_features) for a
    K-dimensional loss (logits shaped (N, C, d_1, ..., d_K)). ignore_index=None means
    -100, but must stay None when target holds class probabilities."""
    _check_shapes(input, linear_weight, linear_bias)
    in_features = input.shape[-1]
    num_classes = linear_weight.shape[0]
    out_features = tuple(linear_weight.shape[1:-1])
    logits_shape = (*input.shape[:-1], num_classes, *out_features)
    if tuple(target.shape) == logits_shape and ignore_index is not None:
        raise RuntimeError("ignore_index cannot be specified when target contains "
                           "probabilities")
    ignore_index = -100 if ignore_index is None else ignore_index
    if options is not None:
        if _chunkable(target, out_features, reduction, label_smoothing):
            if input.dim() == 2:
                return _chunked(input, linear_weight, target, linear_bias, weight,
                                reduction, ignore_index, options)
            return _chunked(input.unsqueeze(0), linear_weight, target.unsqueeze(0),
                            linear_bias, weight, reduction, ignore_index,
                            options).squeeze(0)
        bias_shape = None if linear_bias is None else tuple(linear_bias.shape)
        warnings.warn("linear_cross_entropy: ``options`` ignored; chunked path needs "
                      "reduction in {'mean','sum','none'}, label_smoothing == 0, target.dtype"
                      f" == int64, out_features == (). Got reduction={reduction!r}, "
                      f"label_smoothing={label_smoothing}, target.dtype={target.dtype}, "
                      f"out_features={out_features}, tracing=False, "
                      f"linear_bias.shape={bias_shape}.", stacklevel=2)
    if out_features:
        flat_classes = math.prod(out_features, start=num_classes)
        linear_weight = linear_weight.reshape((flat_classes, in_features))
        if linear_bias is not None:
            linear_bias = linear_bias.reshape(flat_classes)
    logits = linear(input, linear_weight, linear_bias).reshape(logits_shape)
    return cross_entropy(logits, target, weight=weight, reduction=reduction,
                         ignore_index=ignore_index, label_smoothing=label_smoothing)
