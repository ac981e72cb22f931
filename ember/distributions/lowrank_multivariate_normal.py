"""Multivariate normal with a low-rank plus diagonal covariance W @ W.T + diag(D).

With W of shape n x m and m << n, nothing of size n x n is factorised: the Woodbury
identity and the matrix determinant lemma reduce the inverse and the determinant to the
small m x m "capacitance" matrix C = I + W.T @ diag(1/D) @ W.
"""
from __future__ import annotations

import math

import ember
from ember import Size, Tensor

from . import constraints
from .distribution import Distribution, _CenteredAtLoc
from .multivariate_normal import _batch_mahalanobis, _batch_mv
from .utils import lazy_property

__all__ = ["LowRankMultivariateNormal"]


def _with_unit_diagonal(matrix: Tensor) -> Tensor:
    """matrix + I (on the last two dims)."""
    return matrix + ember.eye(matrix.shape[-1], dtype=matrix.dtype)


def _capacitance_tril(cov_factor: Tensor, cov_diag: Tensor) -> Tensor:
    """Cholesky factor of C = I + W.T @ diag(1/D) @ W."""
    wt_dinv = cov_factor.mT / cov_diag.unsqueeze(-2)
    return ember.linalg.cholesky(_with_unit_diagonal(ember.matmul(wt_dinv, cov_factor)))


def _lowrank_logdet(cov_diag: Tensor, capacitance_tril: Tensor) -> Tensor:
    """log det(W W.T + D) = log det C + log det D (matrix determinant lemma)."""
    return (2 * capacitance_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
            + cov_diag.log().sum(-1))


def _lowrank_mahalanobis(cov_factor: Tensor, cov_diag: Tensor, x: Tensor,
                         capacitance_tril: Tensor) -> Tensor:
    """x.T (W W.T + D)^-1 x = x.T D^-1 x - |L_C^-1 W.T D^-1 x|^2 (Woodbury identity)."""
    wt_dinv_x = _batch_mv(cov_factor.mT / cov_diag.unsqueeze(-2), x)
    return (x.pow(2) / cov_diag).sum(-1) - _batch_mahalanobis(capacitance_tril, wt_dinv_x)


class LowRankMultivariateNormal(_CenteredAtLoc, Distribution):
    """Multivariate normal with mean `loc` and covariance cov_factor @ cov_factor.T +
    diag(cov_diag)."""

    arg_constraints = {"loc": constraints.real_vector,
                       "cov_factor": constraints.independent(constraints.real, 2),
                       "cov_diag": constraints.independent(constraints.positive, 1)}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc: Tensor, cov_factor: Tensor, cov_diag: Tensor, validate_args=None):
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        event_shape = loc.shape[-1:]
        if cov_factor.dim() < 2:
            raise ValueError("cov_factor must be at least two-dimensional, "
                             "with optional leading batch dimensions")
        if cov_factor.shape[-2:-1] != event_shape:
            raise ValueError(f"cov_factor must be a batch of matrices with shape "
                             f"{event_shape[0]} x m")
        if cov_diag.shape[-1:] != event_shape:
            raise ValueError(f"cov_diag must be a batch of vectors with shape {event_shape}")
        try:
            loc_column, self.cov_factor, diag_column = ember.broadcast_tensors(
                loc.unsqueeze(-1), cov_factor, cov_diag.unsqueeze(-1))
        except RuntimeError as error:
            raise ValueError(f"Incompatible batch shapes: loc {loc.shape}, cov_factor "
                             f"{cov_factor.shape}, cov_diag {cov_diag.shape}") from error
        self.loc = loc_column[..., 0]
        self.cov_diag = diag_column[..., 0]
        self._unbroadcasted_cov_factor = cov_factor
        self._unbroadcasted_cov_diag = cov_diag
        self._capacitance_tril = _capacitance_tril(cov_factor, cov_diag)
        super().__init__(self.loc.shape[:-1], event_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None) -> "LowRankMultivariateNormal":
        new = self._expand_parameters(LowRankMultivariateNormal, batch_shape, _instance, ())
        vector_shape = new.batch_shape + self.event_shape
        new.loc = self.loc.expand(vector_shape)
        new.cov_diag = self.cov_diag.expand(vector_shape)
        new.cov_factor = self.cov_factor.expand(vector_shape + self.cov_factor.shape[-1:])
        new._unbroadcasted_cov_factor = self._unbroadcasted_cov_factor
        new._unbroadcasted_cov_diag = self._unbroadcasted_cov_diag
        new._capacitance_tril = self._capacitance_tril
        return new

    def _expand_matrix(self, matrix: Tensor) -> Tensor:
        return matrix.expand(self._batch_shape + self._event_shape + self._event_shape)

    @lazy_property
    def variance(self) -> Tensor:
        variance = self._unbroadcasted_cov_factor.pow(2).sum(-1) + self._unbroadcasted_cov_diag
        return variance.expand(self._batch_shape + self._event_shape)

    @lazy_property
    def scale_tril(self) -> Tensor:
        # W W.T + D = D^1/2 (I + D^-1/2 W W.T D^-1/2) D^1/2: factor the middle matrix.
        diag_sqrt = self._unbroadcasted_cov_diag.sqrt().unsqueeze(-1)
        scaled_factor = self._unbroadcasted_cov_factor / diag_sqrt
        middle = _with_unit_diagonal(ember.matmul(scaled_factor, scaled_factor.mT))
        return self._expand_matrix(diag_sqrt * ember.linalg.cholesky(middle))

    @lazy_property
    def covariance_matrix(self) -> Tensor:
        factor = self._unbroadcasted_cov_factor
        return self._expand_matrix(ember.matmul(factor, factor.mT)
                                   + ember.diag_embed(self._unbroadcasted_cov_diag))

    @lazy_property
    def precision_matrix(self) -> Tensor:
        # Woodbury: D^-1 - A.T A with A = L_C^-1 W.T D^-1.
        wt_dinv = self._unbroadcasted_cov_factor.mT / self._unbroadcasted_cov_diag.unsqueeze(-2)
        a = ember.linalg.solve_triangular(self._capacitance_tril, wt_dinv, upper=False)
        precision = ember.diag_embed(self._unbroadcasted_cov_diag.reciprocal()) - a.mT @ a
        return self._expand_matrix(precision)

    def rsample(self, sample_shape=Size()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        eps_factor = ember.randn(shape[:-1] + self.cov_factor.shape[-1:], dtype=self.loc.dtype)
        eps_diag = ember.randn(shape, dtype=self.loc.dtype)
        return (self.loc + _batch_mv(self._unbroadcasted_cov_factor, eps_factor)
                + self._unbroadcasted_cov_diag.sqrt() * eps_diag)

    def _log_det(self) -> Tensor:
        return _lowrank_logdet(self._unbroadcasted_cov_diag, self._capacitance_tril)

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        mahalanobis = _lowrank_mahalanobis(self._unbroadcasted_cov_factor,
                                           self._unbroadcasted_cov_diag, value - self.loc,
                                           self._capacitance_tril)
        n = self._event_shape[0]
        return -0.5 * (n * math.log(2 * math.pi) + self._log_det() + mahalanobis)

    def entropy(self) -> Tensor:
        n = self._event_shape[0]
        entropy = 0.5 * (n * (1.0 + math.log(2 * math.pi)) + self._log_det())
        if len(self._batch_shape) == 0:
            return entropy
        return entropy.expand(self._batch_shape)
