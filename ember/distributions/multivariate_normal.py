"""Multivariate normal distribution, parametrised by a covariance matrix, a precision
matrix or a lower-triangular scale factor L with covariance L @ L.T.

Everything is computed from L (`_unbroadcasted_scale_tril`, kept without the batch
broadcast so that batched solves stay small): samples are loc + L @ eps and
log|det covariance| is 2 * sum(log diag L).
"""
from __future__ import annotations

import math

import ember
from ember import Size, Tensor

from . import constraints
from .distribution import Distribution, _CenteredAtLoc
from .utils import lazy_property

__all__ = ["MultivariateNormal"]


def _batch_mv(bmat: Tensor, bvec: Tensor) -> Tensor:
    """Batched matrix-vector product with broadcasting of the batch dims."""
    return ember.matmul(bmat, bvec.unsqueeze(-1)).squeeze(-1)


def _batch_mahalanobis(scale_tril: Tensor, diff: Tensor) -> Tensor:
    """diff^T (L L^T)^-1 diff for each broadcast batch element: |L^-1 diff|^2."""
    solution = ember.linalg.solve_triangular(scale_tril, diff.unsqueeze(-1), upper=False)
    return solution.squeeze(-1).pow(2).sum(-1)


def _half_log_det(scale_tril: Tensor) -> Tensor:
    """0.5 * log det(L L^T) = sum(log diag L)."""
    return scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)


def _matrix_batch_shape(name: str, matrix: Tensor, loc: Tensor) -> Size:
    if matrix.dim() < 2:
        raise ValueError(f"{name} must be at least two-dimensional, "
                         "with optional leading batch dimensions")
    return ember.broadcast_shapes(matrix.shape[:-2], loc.shape[:-1])


class MultivariateNormal(_CenteredAtLoc, Distribution):
    """Multivariate normal with mean vector `loc`; give exactly one of
    `covariance_matrix`, `precision_matrix` or `scale_tril`."""

    arg_constraints = {
        "loc": constraints.real_vector,
        "covariance_matrix": constraints.positive_definite,
        "precision_matrix": constraints.positive_definite,
        "scale_tril": constraints.lower_cholesky,
    }
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc: Tensor, covariance_matrix=None, precision_matrix=None,
                 scale_tril=None, validate_args=None):
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        given = [m is not None for m in (covariance_matrix, precision_matrix, scale_tril)]
        if sum(given) != 1:
            raise ValueError("Exactly one of covariance_matrix or precision_matrix or "
                             "scale_tril may be specified.")
        if scale_tril is not None:
            batch_shape = _matrix_batch_shape("scale_tril matrix", scale_tril, loc)
            self.scale_tril = scale_tril.expand(batch_shape + (-1, -1))
        elif covariance_matrix is not None:
            batch_shape = _matrix_batch_shape("covariance_matrix", covariance_matrix, loc)
            self.covariance_matrix = covariance_matrix.expand(batch_shape + (-1, -1))
        else:
            batch_shape = _matrix_batch_shape("precision_matrix", precision_matrix, loc)
            self.precision_matrix = precision_matrix.expand(batch_shape + (-1, -1))
        self.loc = loc.expand(batch_shape + (-1,))
        super().__init__(batch_shape, self.loc.shape[-1:], validate_args=validate_args)

        if scale_tril is not None:
            self._unbroadcasted_scale_tril = scale_tril
        elif covariance_matrix is not None:
            self._unbroadcasted_scale_tril = ember.linalg.cholesky(covariance_matrix)
        else:
            # The covariance is the inverse of the precision matrix.
            covariance = ember.linalg.inv(precision_matrix)
            self._unbroadcasted_scale_tril = ember.linalg.cholesky(covariance)

    def expand(self, batch_shape, _instance=None) -> "MultivariateNormal":
        event_shape = self._event_shape
        new = self._expand_parameters(
            MultivariateNormal, batch_shape, _instance,
            ("covariance_matrix", "scale_tril", "precision_matrix"), event_shape + event_shape)
        new.loc = self.loc.expand(new.batch_shape + event_shape)
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril
        return new

    @lazy_property
    def scale_tril(self) -> Tensor:
        return self._unbroadcasted_scale_tril.expand(
            self._batch_shape + self._event_shape + self._event_shape)

    @lazy_property
    def covariance_matrix(self) -> Tensor:
        scale_tril = self._unbroadcasted_scale_tril
        return ember.matmul(scale_tril, scale_tril.mT).expand(
            self._batch_shape + self._event_shape + self._event_shape)

    @lazy_property
    def precision_matrix(self) -> Tensor:
        return ember.cholesky_inverse(self._unbroadcasted_scale_tril).expand(
            self._batch_shape + self._event_shape + self._event_shape)

    @property
    def variance(self) -> Tensor:
        return self._unbroadcasted_scale_tril.pow(2).sum(-1).expand(
            self._batch_shape + self._event_shape)

    def rsample(self, sample_shape=Size()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        eps = ember.randn(shape, dtype=self.loc.dtype)
        return self.loc + _batch_mv(self._unbroadcasted_scale_tril, eps)

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        diff = value - self.loc
        mahalanobis = _batch_mahalanobis(self._unbroadcasted_scale_tril, diff)
        half_log_det = _half_log_det(self._unbroadcasted_scale_tril)
        return -0.5 * (self._event_shape[0] * math.log(2 * math.pi) + mahalanobis) - half_log_det

    def entropy(self) -> Tensor:
        half_log_det = _half_log_det(self._unbroadcasted_scale_tril)
        entropy = 0.5 * self._event_shape[0] * (1.0 + math.log(2 * math.pi)) + half_log_det
        if len(self._batch_shape) == 0:
            return entropy
        return entropy.expand(self._batch_shape)
