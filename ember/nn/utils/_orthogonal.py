"""parametrizations.orthogonal: a weight kept orthogonal (orthonormal columns, or rows
for a wide matrix) whatever the optimizer does to the tensor it is computed from.

The weight is a map of an unconstrained square matrix X onto the orthogonal matrices:
- matrix_exp / cayley: A = X_lower - X_lower^H is skew-symmetric, and both exp(A) and
  (I - A/2)^-1 (I + A/2) are orthogonal;
- householder: the strictly lower part of X holds Householder vectors with tau chosen
  so that each reflector is orthogonal; their product is.
With use_trivialization (the default), the result is further multiplied by a buffer
`base`, an orthogonal matrix set when a value is assigned: the assigned value becomes
`base` and X is reset to the point that maps to the identity. The optimizer then moves
around the current weight rather than around the identity.
"""
from __future__ import annotations

from enum import Enum, auto

from ..._tensor import Tensor
from ..._type_info import finfo
from ...autograd.grad_mode import no_grad
from ...linalg import householder_product, matrix_exp, solve
from ...ops.creation import eye, zeros_like
from ...ops.householder import geqrf
from ...ops.joining import cat
from ...ops.pointwise import allclose
from ...ops.random import randn
from ..modules.module import Module
from . import parametrize


class _OrthMaps(Enum):
    matrix_exp = auto()
    cayley = auto()
    householder = auto()


def _is_orthogonal(Q: Tensor) -> bool:
    n, k = Q.shape[-2:]
    tolerance = 10.0 * n * finfo(Q.dtype).eps
    return allclose(Q.mH @ Q, eye(k, dtype=Q.dtype), atol=tolerance)


def _make_orthogonal(A: Tensor) -> Tensor:
    """The Q of A's QR decomposition with R's diagonal made non-negative (A tall)."""
    compact, tau = geqrf(A)
    Q = householder_product(compact, tau)
    return Q * compact.diagonal(dim1=-2, dim2=-1).sgn().unsqueeze(-2)


class _Orthogonal(Module):

    def __init__(self, weight: Tensor, orthogonal_map: _OrthMaps, *,
                 use_trivialization: bool = True) -> None:
        super().__init__()
        if weight.is_complex() and orthogonal_map == _OrthMaps.householder:
            raise ValueError("The householder parametrization does not support complex "
                             "tensors.")
        self.shape = weight.shape
        self.orthogonal_map = orthogonal_map
        if use_trivialization:
            self.register_buffer("base", None)

    def forward(self, X: Tensor) -> Tensor:
        transposed = X.shape[-2] < X.shape[-1]
        if transposed:                           # work on the tall orientation
            X = X.mT
        n, k = X.shape[-2:]
        if self.orthogonal_map == _OrthMaps.householder:
            A = X.tril(diagonal=-1)
            tau = 2.0 / (1.0 + (A * A).sum(dim=-2))
            # the reflectors flip signs; X's (integer) diagonal picks each column's sign
            Q = householder_product(A, tau) * X.diagonal(dim1=-2, dim2=-1).int().unsqueeze(-2)
        else:
            X = X.tril()
            if n != k:                           # pad to n x n; keep the first k columns
                X = cat([X, X.new_zeros(n, n - k).expand(*X.shape[:-2], -1, -1)], dim=-1)
            A = X - X.mH
            if self.orthogonal_map == _OrthMaps.matrix_exp:
                Q = matrix_exp(A)
            else:
                identity = eye(n, dtype=A.dtype)
                Q = solve(identity - 0.5 * A, identity + 0.5 * A)
            Q = Q[..., :k]
        if hasattr(self, "base"):
            Q = self.base @ Q
        return Q.mT if transposed else Q

    @no_grad()
    def right_inverse(self, Q: Tensor) -> Tensor:
        if Q.shape != self.shape:
            raise ValueError(f"Expected a matrix or batch of matrices of shape {self.shape}. "
                             f"Got a tensor of shape {Q.shape}.")
        assigned = Q
        transposed = Q.shape[-2] < Q.shape[-1]
        if transposed:
            Q = Q.mT
        n, k = Q.shape[-2:]
        if not hasattr(self, "base"):
            if self.orthogonal_map != _OrthMaps.householder:
                raise NotImplementedError("It is not possible to assign to the matrix "
                                          "exponential or the Cayley parametrizations when "
                                          "use_trivialization=False.")
            # geqrf's reflectors, with the diagonal holding the sign of each column
            A, tau = geqrf(Q)
            diagonal = A.diagonal(dim1=-2, dim2=-1)
            diagonal.sign_()
            diagonal[tau == 0.0] *= -1
            return A.mT if transposed else A
        if n != k:                               # complete to a square orthogonal base
            Q = cat([Q, randn(*Q.shape[:-2], n, n - k, dtype=Q.dtype)], dim=-1)
        self.base = Q.clone() if n == k and _is_orthogonal(Q) else _make_orthogonal(Q)
        # the X that each map sends to the identity (so the weight equals the base)
        start = zeros_like(assigned)
        start.diagonal(dim1=-2, dim2=-1).fill_(-1.0)
        return start


def orthogonal(module: Module, name: str = "weight", orthogonal_map: str | None = None, *,
               use_trivialization: bool = True) -> Module:
    """Keep module.`name` (a matrix or batch of matrices) orthogonal.
    orthogonal_map: "matrix_exp", "cayley" or "householder"; by default matrix_exp for
    square or complex matrices, householder otherwise. The first value is the tensor's
    own if it is orthogonal, else the Q of its QR decomposition. Returns the module."""
    weight = getattr(module, name, None)
    if not isinstance(weight, Tensor):
        raise ValueError(f"Module '{module}' has no parameter or buffer with name '{name}'")
    if weight.ndim < 2:
        raise ValueError("Expected a matrix or batch of matrices. Got a tensor of "
                         f"{weight.ndim} dimensions.")
    if orthogonal_map is None:
        square = weight.shape[-2] == weight.shape[-1]
        orthogonal_map = "matrix_exp" if square or weight.is_complex() else "householder"
    chosen = getattr(_OrthMaps, orthogonal_map, None)
    if chosen is None:
        raise ValueError('orthogonal_map has to be one of "matrix_exp", "cayley", '
                         f'"householder". Got: {orthogonal_map}')
    parametrization = _Orthogonal(weight, chosen, use_trivialization=use_trivialization)
    parametrize.register_parametrization(module, name, parametrization, unsafe=True)
    return module
