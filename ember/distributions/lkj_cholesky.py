"""LKJ distribution over Cholesky factors L of correlation matrices (Lewandowski, Kurowicka
and Joe, 2009): the density of the correlation matrix L L.T is proportional to
det(L L.T)^(concentration - 1), so concentration 1 is uniform over correlation matrices and
larger values favour the identity.

Sampling uses the onion method: row i of L is a uniformly random direction scaled to a
squared length y_i ~ Beta, with the diagonal entry taking the rest of the unit length.
"""
from __future__ import annotations

import math

import ember
from ember import Size, Tensor

from . import constraints
from .beta import Beta
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["LKJCholesky"]


class LKJCholesky(Distribution):
    """LKJ distribution over lower Cholesky factors of `dim` x `dim` correlation matrices."""

    arg_constraints = {"concentration": constraints.positive}
    support = constraints.corr_cholesky

    def __init__(self, dim: int, concentration=1.0, validate_args=None):
        if dim < 2:
            raise ValueError("Expected dim to be an integer greater than or equal to 2. "
                             f"Found dim={dim}.")
        self.dim = dim
        (self.concentration,) = broadcast_all(concentration)
        # Row i >= 1 has i off-diagonal entries; their squared length is
        # Beta(i / 2, concentration + (dim - 1 - i) / 2). Row 0 has none: its entry is unused.
        # (torch 2.13 uses i - 1/2 as the first parameter, which makes the correlations of
        # rows >= 2 too spread out; this is the onion method as published.)
        rows = ember.arange(dim, dtype=self.concentration.dtype).clamp(min=1)
        marginal = self.concentration + 0.5 * (dim - 1)
        self._beta = Beta(0.5 * rows, marginal.unsqueeze(-1) - 0.5 * rows)
        super().__init__(self.concentration.size(), Size((dim, dim)), validate_args)

    def expand(self, batch_shape, _instance=None) -> "LKJCholesky":
        new = self._expand_parameters(LKJCholesky, batch_shape, _instance, ("concentration",))
        new.dim = self.dim
        new._beta = self._beta.expand(new.batch_shape + (self.dim,))
        return new

    def sample(self, sample_shape=Size()) -> Tensor:
        with ember.no_grad():
            squared_length = self._beta.sample(sample_shape).unsqueeze(-1)
            normals = ember.randn(self._extended_shape(sample_shape),
                                  dtype=squared_length.dtype).tril(-1)
            # Unit directions for rows 1.. (row 0 is all zeros and stays so).
            norms = normals.norm(dim=-1, keepdim=True)
            directions = normals / norms.clamp(min=ember.finfo(norms.dtype).tiny)
            off_diagonal = squared_length.sqrt() * directions
            tiny = ember.finfo(off_diagonal.dtype).tiny
            diagonal = (1 - off_diagonal.pow(2).sum(-1)).clamp(min=tiny).sqrt()
            return off_diagonal + ember.diag_embed(diagonal)

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        # The density in L: prod_i L_ii^(dim - i + 2 (c - 1)) for i = 2..dim (1-based).
        diagonal = value.diagonal(dim1=-1, dim2=-2)[..., 1:]
        order = ember.arange(2, self.dim + 1)
        exponent = 2 * (self.concentration - 1).unsqueeze(-1) + self.dim - order
        unnormalized = (exponent * diagonal.log()).sum(-1)
        dm1 = self.dim - 1
        alpha = self.concentration + 0.5 * dm1
        log_normalizer = (0.5 * dm1 * math.log(math.pi) + ember.mvlgamma(alpha - 0.5, dm1)
                          - ember.lgamma(alpha) * dm1)
        return unnormalized - log_normalizer
