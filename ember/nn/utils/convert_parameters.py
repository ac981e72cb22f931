"""Flatten parameters into one vector and back (used by second-order optimisers)."""
from __future__ import annotations

import math

import numpy as np

from ..._tensor import Tensor
from ...autograd.function import Function

__all__ = ["parameters_to_vector", "vector_to_parameters"]


class _FlattenCat(Function):
    """Concatenate the flattened inputs; the gradient is split back into their shapes."""

    backward_name = "CatBackward0"

    @staticmethod
    def forward(ctx, *arrays):
        ctx.shapes = [a.shape for a in arrays]
        return np.concatenate([a.reshape(-1) for a in arrays])

    @staticmethod
    def backward(ctx, grad):
        grads, start = [], 0
        for shape in ctx.shapes:
            n = math.prod(shape)
            grads.append(grad[start:start + n].reshape(shape))
            start += n
        return tuple(grads)


def parameters_to_vector(parameters) -> Tensor:
    """One 1-D tensor holding every parameter's values, in order."""
    return _FlattenCat.apply(*parameters)


def vector_to_parameters(vec: Tensor, parameters) -> None:
    """Make each parameter's data the matching slice of `vec` (they then share memory)."""
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {type(vec).__name__}")
    pointer = 0
    for param in parameters:
        n = param.numel()
        param.data = vec[pointer:pointer + n].view_as(param).data
        pointer += n
