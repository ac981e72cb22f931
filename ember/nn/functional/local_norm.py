"""rms_norm and local_response_norm: normalisations built from ordinary ops."""
from __future__ import annotations

import numpy as np

from ... import _dtype
from ..._tensor import Tensor
from .padding import pad
from .pooling import avg_pool2d

__all__ = ["rms_norm", "local_response_norm"]


def _machine_eps(dtype) -> float:
    if dtype == _dtype.bfloat16:
        return 2.0 ** -7
    return float(np.finfo(dtype.numpy).eps)


def rms_norm(input: Tensor, normalized_shape, weight: Tensor | None = None,
             eps: float | None = None) -> Tensor:
    """x / sqrt(mean(x^2) + eps) over the trailing `normalized_shape` dims, times weight."""
    if isinstance(normalized_shape, int):
        normalized_shape = (normalized_shape,)
    normalized_shape = tuple(normalized_shape)
    k = len(normalized_shape)
    if k > input.ndim or tuple(input.shape[input.ndim - k:]) != normalized_shape:
        raise RuntimeError(f"Given normalized_shape={list(normalized_shape)}, expected input "
                           f"with shape [*{', '.join(map(str, normalized_shape))}], but got "
                           f"input of size{list(input.shape)}")
    if eps is None:
        eps = _machine_eps(input.dtype)
    dims = tuple(range(input.ndim - k, input.ndim))
    y = input * ((input * input).mean(dims, keepdim=True) + eps).rsqrt()
    return y * weight if weight is not None else y


def local_response_norm(input: Tensor, size: int, alpha: float = 1e-4, beta: float = 0.75,
                        k: float = 1.0) -> Tensor:
    """x / (k + alpha * mean of x^2 over `size` neighbouring channels) ** beta."""
    if input.ndim < 3:
        raise ValueError(f"Expected 3D or higher dimensionality input (got {input.ndim} "
                         "dimensions)")
    if input.numel() == 0:
        return input
    n, c = input.shape[:2]
    # Channels become the height of a 1-channel image; a (size x 1) average pool over the
    # zero-padded channels is the windowed mean of squares (padding counts, as in torch).
    squares = (input * input).reshape(n, 1, c, -1)
    squares = pad(squares, (0, 0, size // 2, (size - 1) // 2))
    mean = avg_pool2d(squares, (size, 1), stride=1).reshape(input.shape)
    return input / (mean * alpha + k) ** beta
