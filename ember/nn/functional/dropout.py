"""Dropout family: zero random elements (or whole channels) in training, scale the rest."""
from __future__ import annotations

import warnings

import numpy as np

from ..._cpu import kernels
from ..._cpu.dropout import dropout_factor
from ..._memory_format import fill_order
from ... import _sampling
from ..._random import default_generator
from ..._recorded_call import replayed_call
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
        y = x * mask
        if shift is not None:
            y += shift
        return y.astype(x.dtype, copy=False)

    @staticmethod
    def backward(ctx, grad):
        return grad * Tensor._wrap(ctx.mask), None, None


class FeatureMask(MaskedScale):
    """Feature dropout's product with its broadcast mask, which torch records as a Mul."""
    backward_name = "MulBackward0"


def _check_p(p: float) -> None:
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def _apply(input: Tensor, mask: np.ndarray, shift, inplace: bool,
           function: type = MaskedScale) -> Tensor:
    if inplace:
        return input._inplace(lambda x: function.apply(x, mask, shift))
    return function.apply(input, mask, shift)


@replayed_call
def keep_draws(shape, p: float, order: tuple | None = None) -> np.ndarray:
    """Which elements dropout keeps (bool, True with probability 1 - p), drawn from the
    default generator as torch's bernoulli_(1 - p) draws them, so a seed gives torch's
    masks: along the dims in `order` (outermost first) when given, as torch draws a mask
    laid out like a transposed or channels_last input (_memory_format.fill_order). A
    replayed call: a compiled plan draws a fresh mask at each call."""
    if order is None:
        return _sampling.bernoulli(default_generator, shape, 1 - p)
    drawn = _sampling.bernoulli(default_generator, tuple(shape[d] for d in order), 1 - p)
    return drawn.transpose(np.argsort(order))


def _order_of(input: Tensor) -> tuple | None:
    return fill_order(tuple(input.shape), input.stride())


@replayed_call
def _keep_mask(shape, p: float, dtype) -> np.ndarray:
    """1/(1-p) where an element is kept, 0 where dropped (all zeros when p == 1)."""
    mask = keep_draws(shape, p).astype(dtype)
    mask *= dropout_factor(p)
    return mask


class Dropout(Function):
    """y = x * keep / (1 - p): kernels.family("dropout") applies the boolean mask `keep`
    in forward and backward alike. torch's CPU dropout multiplies by its mask, so the
    node is a Mul."""
    backward_name = "MulBackward0"

    @staticmethod
    def forward(ctx, x, keep, p):
        ctx.keep, ctx.p = keep, p
        return kernels.family("dropout").dropout(x, keep, p)

    @staticmethod
    def backward(ctx, grad):
        # The product with a fixed mask is linear and its own adjoint: the gradient is the
        # same dropout of grad, itself a node when the backward is differentiated.
        return Dropout.apply(grad, ctx.keep, ctx.p), None, None


def dropout(input: Tensor, p: float = 0.5, training: bool = True,
            inplace: bool = False) -> Tensor:
    """Zero each element with probability p and scale the rest by 1/(1-p) (training only)."""
    _check_p(p)
    if not training or p == 0:
        return input
    keep = keep_draws(input.shape, p, _order_of(input))
    if inplace:
        return input._inplace(lambda x: Dropout.apply(x, keep, p))
    return Dropout.apply(input, keep, p)


def _feature_dropout(input: Tensor, p: float, training: bool, inplace: bool) -> Tensor:
    """torch's feature dropout: one keep-or-drop draw per (sample, channel), that is per index
    of dims 0 and 1, shared by the rest of the dims."""
    if not training or p == 0 or input.numel() == 0:
        return input
    if p < 1 and input.ndim < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    shape = tuple(input.shape[:2]) + (1,) * (input.ndim - 2)
    return _apply(input, _keep_mask(shape, p, input.dtype.numpy), None, inplace, FeatureMask)


def _with_batch_dim(input: Tensor, p: float, training: bool, inplace: bool,
                    batched: bool) -> Tensor:
    """Feature dropout of an input that may lack its batch dim: one is added, then removed
    (so an unbatched input's channels are its dim 0)."""
    if batched:
        return _feature_dropout(input, p, training, inplace)
    input = input.unsqueeze_(0) if inplace else input.unsqueeze(0)
    result = _feature_dropout(input, p, training, inplace)
    return result.squeeze_(0) if inplace else result.squeeze(0)


def _warn_rank(name: str, ndim: int, spatial: int) -> None:
    """torch accepts other ranks for dropout2d/3d with this deprecation warning."""
    warnings.warn(f"{name}: Received a {ndim}-D input to {name}, which is deprecated and will "
                  "result in an error in a future release. To retain the behavior and silence "
                  f"this warning, please use dropout instead. Note that {name} exists to provide "
                  f"channel-wise dropout on inputs with {spatial} spatial dimensions, a channel "
                  f"dimension, and an optional batch dimension (i.e. {spatial + 1}D or "
                  f"{spatial + 2}D inputs).", UserWarning, stacklevel=3)


def dropout1d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False):
    """Zero whole channels of a (N, C, L) or (C, L) input with probability p, scaling the
    kept ones by 1/(1-p). Other ranks are an error."""
    _check_p(p)
    if input.ndim not in (2, 3):
        raise RuntimeError(f"dropout1d: Expected 2D or 3D input, but received a {input.ndim}D "
                           "input. Note that dropout1d exists to provide channel-wise dropout on "
                           "inputs with 1 spatial dimension, a channel dimension, and an optional "
                           "batch dimension (i.e. 2D or 3D inputs).")
    return _with_batch_dim(input, p, training, inplace, batched=input.ndim == 3)


def dropout2d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False):
    """Zero whole channels of a (N, C, H, W) input with probability p, scaling the kept ones by
    1/(1-p). As in torch, a 3-D input is read as (N, C, L), not as an unbatched (C, H, W), and
    other ranks warn and drop per (dim 0, dim 1) index (elements of a 2-D input)."""
    _check_p(p)
    if input.ndim not in (3, 4):
        _warn_rank("dropout2d", input.ndim, 2)
    if input.ndim == 3:
        warnings.warn("dropout2d: Received a 3D input to dropout2d and assuming that channel-"
                      "wise 1D dropout behavior is desired - input is interpreted as shape "
                      "(N, C, L), where C is the channel dim. This behavior will change in a "
                      "future release to interpret the input as one without a batch "
                      "dimension, i.e. shape (C, H, W). To maintain the 1D channel-wise "
                      "dropout behavior, please switch to using dropout1d instead.",
                      UserWarning, stacklevel=2)
    return _feature_dropout(input, p, training, inplace)


def dropout3d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False):
    """Zero whole channels of a (N, C, D, H, W) or (C, D, H, W) input with probability p,
    scaling the kept ones by 1/(1-p). As in torch, other ranks warn and are taken as unbatched:
    their dim 0 indexes the channels."""
    _check_p(p)
    if input.ndim not in (4, 5):
        _warn_rank("dropout3d", input.ndim, 3)
    return _with_batch_dim(input, p, training, inplace, batched=input.ndim == 5)


# SELU's fixed point: alpha dropout keeps zero mean and unit variance for SELU outputs.
_SELU_ALPHA_PRIME = -1.7580993408473766


def _alpha(input: Tensor, p: float, training: bool, inplace: bool, mask_shape) -> Tensor:
    _check_p(p)
    if not training or p == 0:
        return input
    order = _order_of(input) if mask_shape == tuple(input.shape) else None
    mask, shift = _alpha_mask_and_shift(mask_shape, p, input.dtype.numpy, order)
    return _apply(input, mask, shift, inplace)


@replayed_call
def _alpha_mask_and_shift(mask_shape, p: float, dtype, order=None) -> tuple:
    """Alpha dropout's factor and shift per element (a kept element keeps mean and
    variance, a dropped one becomes SELU's saturation value), from fresh draws: a
    replayed call, so that a compiled plan draws at each call."""
    keep = keep_draws(mask_shape, p, order).astype(dtype)
    if p == 1:
        return keep * 0, np.zeros(mask_shape, dtype)
    a = 1.0 / np.sqrt((_SELU_ALPHA_PRIME ** 2 * p + 1) * (1 - p))
    b = -a * _SELU_ALPHA_PRIME * p
    mask = keep * a
    shift = (1 - keep) * (a * _SELU_ALPHA_PRIME) + b
    return mask.astype(dtype), shift.astype(dtype)


def alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False,
                  inplace: bool = False) -> Tensor:
    """Dropout for SELU networks: dropped elements are set to SELU's negative saturation value and
    the result is rescaled so the mean and variance are kept."""
    return _alpha(input, p, training, inplace, input.shape)


def feature_alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False,
                          inplace: bool = False) -> Tensor:
    """Alpha dropout of whole channels: every element of a dropped (sample, channel) slice gets
    SELU's saturation value; the result keeps mean and variance."""
    if training and 0 < p < 1 and input.numel() and input.ndim < 2:
        raise RuntimeError("Feature dropout requires at least 2 dimensions in the input")
    shape = tuple(input.shape[:2]) + (1,) * (input.ndim - 2)
    return _alpha(input, p, training, inplace, shape)
