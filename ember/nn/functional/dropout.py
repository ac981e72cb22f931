"""Dropout family: zero random elements (or whole channels) in training, scale the rest."""
from __future__ import annotations

import numpy as np

from ..._random import numpy_generator
from ..._tensor import Tensor
from ...autograd.function import Function

__all__ = ["dropout", "dropout1d", "dropout2d", "dropout3d", "alpha_dropout",
           "feature_alpha_dropout"]


class MaskedScale(Function):
    """y = x * mask + shift, with a fixed (non-differentiable) mask and shift."""
    backward_name = "NativeDropoutBackward0"

    @staticmethod
    def forward(ctx, x, mask, shift):
        ctx.mask = mask
        y = x._data * mask
        if shift is not None:
            y += shift
        return y.astype(x._data.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        return grad * Tensor._wrap(ctx.mask), None, None


def _check_p(p: float) -> None:
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def _apply(input: Tensor, mask: np.ndarray, shift, inplace: bool) -> Tensor:
    if inplace:
        return input._inplace(lambda x: MaskedScale.apply(x, mask, shift))
    return MaskedScale.apply(input, mask, shift)


def _keep_mask(shape, p: float, dtype) -> np.ndarray:
    """1/(1-p) where an element is kept, 0 where dropped (all zeros when p == 1)."""
    draws = np.float32 if np.dtype(dtype).itemsize <= 4 else np.float64
    keep = numpy_generator(None).random(shape, dtype=draws) >= p
    mask = keep.astype(dtype)
    mask *= 0.0 if p == 1 else 1.0 / (1.0 - p)
    return mask


def dropout(input: Tensor, p: float = 0.5, training: bool = True,
            inplace: bool = False) -> Tensor:
    _check_p(p)
    if not training or p == 0:
        return input
    return _apply(input, _keep_mask(input.shape, p, input._data.dtype), None, inplace)


def _feature_dropout(input: Tensor, p: float, training: bool, inplace: bool, n: int,
                     name: str) -> Tensor:
    _check_p(p)
    if input.ndim not in (n + 1, n + 2):
        raise RuntimeError(f"{name}: Expected {n + 1}D or {n + 2}D input, but received a "
                           f"{input.ndim}D input. Note that {name} exists to provide channel-"
                           f"wise dropout on inputs with {n} spatial dimension, a channel "
                           "dimension, and an optional batch dimension (i.e. "
                           f"{n + 1}D or {n + 2}D inputs).")
    if not training or p == 0:
        return input
    lead = input.ndim - n
    shape = tuple(input.shape[:lead]) + (1,) * n
    return _apply(input, _keep_mask(shape, p, input._data.dtype), None, inplace)


def dropout1d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False):
    return _feature_dropout(input, p, training, inplace, 1, "dropout1d")


def dropout2d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False):
    if input.ndim == 3:
        import warnings
        warnings.warn("dropout2d: Received a 3D input to dropout2d and assuming that channel-"
                      "wise 1D dropout behavior is desired - input is interpreted as shape "
                      "(N, C, L), where C is the channel dim. This behavior will change in a "
                      "future release to interpret the input as one without a batch "
                      "dimension, i.e. shape (C, H, W). To maintain the 1D channel-wise "
                      "dropout behavior, please switch to using dropout1d instead.",
                      UserWarning, stacklevel=2)
        return _feature_dropout(input, p, training, inplace, 1, "dropout2d")
    return _feature_dropout(input, p, training, inplace, 2, "dropout2d")


def dropout3d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False):
    return _feature_dropout(input, p, training, inplace, 3, "dropout3d")


# SELU's fixed point: alpha dropout keeps zero mean and unit variance for SELU outputs.
_SELU_ALPHA_PRIME = -1.7580993408473766


def _alpha(input: Tensor, p: float, training: bool, inplace: bool, mask_shape) -> Tensor:
    _check_p(p)
    if not training or p == 0:
        return input
    keep = (numpy_generator(None).random(mask_shape) >= p).astype(input._data.dtype)
    if p == 1:
        return _apply(input, keep * 0, np.zeros(mask_shape, input._data.dtype), inplace)
    a = 1.0 / np.sqrt((_SELU_ALPHA_PRIME ** 2 * p + 1) * (1 - p))
    b = -a * _SELU_ALPHA_PRIME * p
    mask = keep * a
    shift = (1 - keep) * (a * _SELU_ALPHA_PRIME) + b
    return _apply(input, mask.astype(input._data.dtype), shift.astype(input._data.dtype),
                  inplace)


def alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False,
                  inplace: bool = False) -> Tensor:
    return _alpha(input, p, training, inplace, input.shape)


def feature_alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False,
                          inplace: bool = False) -> Tensor:
    shape = tuple(input.shape[:2]) + (1,) * (input.ndim - 2)
    return _alpha(input, p, training, inplace, shape)
