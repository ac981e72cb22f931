"""QR in LAPACK's compact form: torch.geqrf and its inverse, torch.linalg.householder_product.

geqrf(A) returns (a, tau) as LAPACK does: R on and above a's diagonal, and below it the
Householder vectors v_i (each with an implicit 1 on the diagonal) whose reflectors
H_i = I - tau_i v_i v_i^H multiply to Q = H_1 H_2 ... H_k.

householder_product(a, tau) forms the first n columns of that product. It is written
with ember's differentiable ops (one rank-one update per reflector), so its gradients
for a and tau, and higher derivatives, come from autograd.
"""
from __future__ import annotations

import numpy as np

from ._return_types import return_types
from .._tensor import Tensor
from ..autograd.function import Function
from .creation import eye
from .indexing import _named

METHODS = ["geqrf", "orgqr", "ormqr"]

__all__ = ["geqrf", "orgqr", "ormqr"]


class Geqrf(Function):
    backward_name = "GeqrfBackward0"

    @staticmethod
    def forward(ctx, A):
        compact, tau = np.linalg.qr(A, mode="raw")   # compact form comes transposed
        return np.ascontiguousarray(compact.swapaxes(-1, -2)), tau

    @staticmethod
    def backward(ctx, grad_a, grad_tau):
        raise NotImplementedError("the derivative for 'geqrf' is not implemented.")


def geqrf(input: Tensor, *, out=None) -> tuple:
    """QR factorisation in LAPACK's compact form: (a, tau) with R in a's upper triangle and the
    Householder vectors below it (householder_product rebuilds Q)."""
    if out is not None:
        raise NotImplementedError("geqrf: the 'out' argument is not supported by ember")
    if input.ndim < 2:
        raise RuntimeError("torch.geqrf: input must have at least 2 dimensions.")
    if not (input.is_floating_point() or input.is_complex()):
        raise NotImplementedError(f'"geqrf_cpu" not implemented for '
                                  f"'{input.dtype.scalar_name}'")
    return return_types.geqrf(*Geqrf.apply(input))


def _check_householder_args(input: Tensor, tau: Tensor) -> None:
    name = "torch.linalg.householder_product"
    if input.ndim < 2:
        raise RuntimeError(f"{name}: input must have at least 2 dimensions.")
    if input.shape[-2] < input.shape[-1]:
        raise RuntimeError(f"{name}: input.shape[-2] must be greater than or equal to "
                           "input.shape[-1]")
    if input.shape[-1] < tau.shape[-1]:
        raise RuntimeError(f"{name}: input.shape[-1] must be greater than or equal to "
                           "tau.shape[-1]")
    if tau.ndim != input.ndim - 1:
        raise RuntimeError(f"{name}: Expected tau to have one dimension less than input, "
                           f"but got tau.ndim equal to {tau.ndim} and input.ndim is equal "
                           f"to {input.ndim}")
    if tau.shape[:-1] != input.shape[:-2]:
        raise RuntimeError(f"{name}: Expected batch dimensions of tau to be equal to "
                           f"input.shape[:-2], but got {list(tau.shape[:-1])}")
    if tau.dtype != input.dtype:
        names = (t.dtype.scalar_name for t in (tau, input))
        raise RuntimeError("{}: tau dtype {} does not match input dtype {}".format(
            name, *names))


class _NoReflectors(Function):
    """The product of zero reflectors: the identity's first columns, recorded in the graph
    as torch does (the output requires grad; no gradient reaches a or tau)."""
    backward_name = "LinalgHouseholderProductBackward0"

    @staticmethod
    def forward(ctx, A, tau):
        identity = np.eye(*A.shape[-2:], dtype=A.dtype)
        return np.broadcast_to(identity, A.shape).copy()

    @staticmethod
    def backward(ctx, grad):
        return None, None


def householder_product(A: Tensor, tau: Tensor, *, out=None) -> Tensor:
    """The first n columns of the product of Householder reflectors H_i = I - tau_i v_i v_i^H, where
    v_i is the i-th column of `A` below the diagonal (with a unit diagonal entry): the Q of a QR
    factorisation given in LAPACK's compact form."""
    if out is not None:
        raise NotImplementedError("householder_product: the 'out' argument is not "
                                  "supported by ember")
    _check_householder_args(A, tau)
    rows, columns = A.shape[-2:]
    if tau.shape[-1] == 0:
        return _NoReflectors.apply(A, tau)
    identity = eye(rows, columns, dtype=A.dtype).expand(*A.shape)
    return _named(_apply_reflectors(A, tau, identity, left=True, transpose=False),
                  "LinalgHouseholderProductBackward0")


def _apply_reflectors(A: Tensor, tau: Tensor, C: Tensor, left: bool, transpose: bool) -> Tensor:
    """op(Q) @ C (left) or C @ op(Q), where Q = H_1 ... H_k are the reflectors of (A, tau)
    and op is the conjugate transpose when `transpose`: one rank-one update of C per
    reflector, H_i = I - tau_i v_i v_i^H (H_i^H has conj(tau_i))."""
    rows, k = A.shape[-2], tau.shape[-1]
    # Column i of `vectors` is v_i: zero above row i, 1 on it, A's entries below.
    vectors = A[..., :k].tril(-1) + eye(rows, k, dtype=A.dtype)
    scales = tau.conj() if transpose else tau
    # Q C = H_1 (... (H_k C)) and C Q^H = ((C H_k^H) ...) H_1^H run the reflectors from
    # the last; Q^H C and C Q from the first.
    order = range(k) if transpose == left else range(k - 1, -1, -1)
    for i in order:
        v, t = vectors[..., i:i + 1], scales[..., i, None, None]
        C = C - (t * v) @ (v.mH @ C) if left else C - ((C @ v) * t) @ v.mH
    return C


def ormqr(input: Tensor, tau: Tensor, other: Tensor, left: bool = True,
          transpose: bool = False, *, out=None) -> Tensor:
    """op(Q) @ other (left=True) or other @ op(Q), where Q is the product of the Householder
    reflectors (input, tau) that geqrf returns and op is the conjugate transpose when
    `transpose`, else nothing."""
    if out is not None:
        raise NotImplementedError("ormqr: the 'out' argument is not supported by ember")
    if input.ndim < 2 or other.ndim < 2:
        raise RuntimeError("torch.ormqr: input and other must have at least 2 dimensions.")
    side = -2 if left else -1
    if other.shape[side] != input.shape[-2]:
        raise RuntimeError(f"torch.ormqr: other.shape[{side}] must be equal to "
                           f"input.shape[-2]")
    if tau.shape[-1] != min(other.shape[side], input.shape[-1]):
        raise RuntimeError(f"torch.ormqr: tau.shape[-1] must be equal to "
                           f"min(other.shape[{side}], input.shape[-1])")
    if other.dtype != input.dtype or tau.dtype != input.dtype:
        wrong = other if other.dtype != input.dtype else tau
        name = "other" if wrong is other else "tau"
        raise RuntimeError(f"torch.ormqr: Expected input and {name} to have the same dtype, "
                           f"but input has dtype{input.dtype.scalar_name} and {name} has "
                           f"dtype {wrong.dtype.scalar_name}")
    return _named(_apply_reflectors(input, tau, other, left, transpose), "OrmqrBackward0")


def orgqr(input: Tensor, tau: Tensor) -> Tensor:
    """torch.orgqr: householder_product under LAPACK's name."""
    return householder_product(input, tau)
