"""Vector norms and distances: normalize, cosine_similarity, pairwise_distance, pdist."""
from __future__ import annotations

import numpy as np

from ...ops.shape import broadcast_shapes
from ..._tensor import Tensor

__all__ = ["normalize", "cosine_similarity", "pairwise_distance", "pdist"]


def normalize(input: Tensor, p: float = 2.0, dim: int = 1, eps: float = 1e-12,
              out: Tensor | None = None) -> Tensor:
    """input / max(||input||_p, eps) along dim."""
    if out is not None:
        raise NotImplementedError("normalize: the out= argument is not supported by ember")
    denom = input.norm(p, dim, keepdim=True).clamp_min(eps)
    return input / denom.expand_as(input)


def _norm_clamped_without_grad(x: Tensor, dim: int, eps: float) -> Tensor:
    """||x|| along dim, raised to eps in value only: torch clamps it outside autograd."""
    n = x.norm(2, dim, keepdim=True)
    return n + (n.clamp_min(eps) - n).detach()


def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-8) -> Tensor:
    """sum(x1 * x2) / (max(||x1||, eps) * max(||x2||, eps)) along dim (broadcasting)."""
    shape = broadcast_shapes(x1.shape, x2.shape)
    x1, x2 = x1.broadcast_to(shape), x2.broadcast_to(shape)
    n1 = _norm_clamped_without_grad(x1, dim, eps)
    n2 = _norm_clamped_without_grad(x2, dim, eps)
    return ((x1 / n1) * (x2 / n2)).sum(dim)


def pairwise_distance(x1: Tensor, x2: Tensor, p: float = 2.0, eps: float = 1e-6,
                      keepdim: bool = False) -> Tensor:
    """||x1 - x2 + eps||_p over the last dimension."""
    return (x1 - x2 + eps).norm(p, -1, keepdim=keepdim)


def pdist(input: Tensor, p: float = 2) -> Tensor:
    """p-norm distances between every pair of rows (i < j) of an (N, M) input."""
    if input.dim() != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.dim()}D")
    i, j = np.triu_indices(input.shape[0], 1)
    return (input[i] - input[j]).norm(p, 1)
