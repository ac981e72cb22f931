"""LDL^T factorisation of symmetric matrices with Bunch-Kaufman pivoting, in LAPACK's
compact form (torch.linalg.ldl_factor, ldl_factor_ex, ldl_solve).

LD holds the unit lower triangular L below its diagonal and the block diagonal D (1x1 and
2x2 blocks) on and next to it; pivots are 1-based, as LAPACK's sytrf gives them: a
positive p at k swapped rows/columns k and p-1 before a 1x1 step, a pair of equal negative
-p at k and k+1 marks a 2x2 block after swapping k+1 and p-1. The steps follow LAPACK's
unblocked algorithm (sytf2, lower triangle), so the pivots are the ones torch returns.
Neither op is differentiable, as in torch.
"""
from __future__ import annotations

import math

import numpy as np

from .._tensor import Tensor
from ..ops._return_types import return_types

ALPHA = (1 + math.sqrt(17)) / 8      # Bunch-Kaufman's threshold: bounds the growth of L


def _pivot(A: np.ndarray, k: int) -> tuple:
    """(kp, kstep) for column k: which row/column to bring to k (or k+1), and whether the
    step is a 1x1 or a 2x2 block; kp is None when the column is zero (a singular matrix)."""
    n = A.shape[0]
    absakk = abs(A[k, k])
    imax, colmax = k, 0.0
    if k < n - 1:
        imax = k + 1 + int(np.argmax(np.abs(A[k + 1:, k])))
        colmax = abs(A[imax, k])
    if max(absakk, colmax) == 0 or np.isnan(absakk):
        return None, 1
    if absakk >= ALPHA * colmax:
        return k, 1
    rowmax = np.abs(A[imax, k:imax]).max()
    if imax < n - 1:
        rowmax = max(rowmax, np.abs(A[imax + 1:, imax]).max())
    if absakk >= ALPHA * colmax * (colmax / rowmax):
        return k, 1
    if abs(A[imax, imax]) >= ALPHA * rowmax:
        return imax, 1
    return imax, 2


def _swap(A: np.ndarray, k: int, kk: int, kp: int, kstep: int) -> None:
    """Swap rows and columns kk and kp of the trailing lower triangle A[k:, k:]."""
    A[kp + 1:, [kk, kp]] = A[kp + 1:, [kp, kk]]
    between = A[kk + 1:kp, kk].copy()
    A[kk + 1:kp, kk] = A[kp, kk + 1:kp]
    A[kp, kk + 1:kp] = between
    A[[kk, kp], [kk, kp]] = A[[kp, kk], [kp, kk]]
    if kstep == 2:
        A[[k + 1, kp], k] = A[[kp, k + 1], k]


def _factor(A: np.ndarray) -> tuple:
    """(LD, pivots, info) of one symmetric matrix (its lower triangle is read)."""
    A = np.tril(A).astype(A.dtype, copy=True)
    n = A.shape[0]
    pivots = np.zeros(n, dtype=np.int32)
    info, k = 0, 0
    while k < n:
        kp, kstep = _pivot(A, k)
        if kp is None:
            info = info or k + 1
            pivots[k] = k + 1
            k += 1
            continue
        kk = k + kstep - 1
        if kp != kk:
            _swap(A, k, kk, kp, kstep)
        # the updates round as LAPACK's (each product formed as it forms it)
        if kstep == 1:
            inverse, column = 1 / A[k, k], A[k + 1:, k].copy()
            A[k + 1:, k + 1:] += np.tril(np.outer(column, -inverse * column))
            A[k + 1:, k] = inverse * column                   # L's column k
            pivots[k] = kp + 1
        else:
            d21 = A[k + 1, k]
            d11, d22 = A[k + 1, k + 1] / d21, A[k, k] / d21
            scale = 1 / (d11 * d22 - 1) / d21
            below = A[k + 2:, k:k + 2]
            wk = scale * (d11 * below[:, 0] - below[:, 1])   # L's columns k and k+1
            wkp1 = scale * (d22 * below[:, 1] - below[:, 0])
            A[k + 2:, k + 2:] -= np.tril(np.outer(below[:, 0], wk))
            A[k + 2:, k + 2:] -= np.tril(np.outer(below[:, 1], wkp1))
            A[k + 2:, k], A[k + 2:, k + 1] = wk, wkp1
            pivots[k] = pivots[k + 1] = -(kp + 1)
        k += kstep
    return A, pivots, info


def _solve(LD: np.ndarray, pivots: np.ndarray, B: np.ndarray) -> np.ndarray:
    """X with A X = B for A = P L D L^T P^T given as (LD, pivots) (LAPACK's sytrs)."""
    X = B.astype(np.result_type(LD, B), copy=True)
    n = LD.shape[0]
    k = 0
    while k < n:                                         # L D Y = P^T B
        if pivots[k] > 0:
            kp = pivots[k] - 1
            X[[k, kp]] = X[[kp, k]]
            X[k + 1:] -= np.outer(LD[k + 1:, k], X[k])
            X[k] *= 1 / LD[k, k]
            k += 1
            continue
        kp = -pivots[k] - 1
        X[[k + 1, kp]] = X[[kp, k + 1]]
        X[k + 2:] -= np.outer(LD[k + 2:, k], X[k])
        X[k + 2:] -= np.outer(LD[k + 2:, k + 1], X[k + 1])
        off = LD[k + 1, k]
        a11, a22 = LD[k, k] / off, LD[k + 1, k + 1] / off
        denom = a11 * a22 - 1
        b1, b2 = X[k] / off, X[k + 1] / off
        X[k], X[k + 1] = (a22 * b1 - b2) / denom, (a11 * b2 - b1) / denom
        k += 2
    k = n - 1
    while k >= 0:                                        # L^T P^T X = Y
        X[k] -= LD[k + 1:, k] @ X[k + 1:]
        if pivots[k] > 0:
            kp = pivots[k] - 1
            X[[k, kp]] = X[[kp, k]]
            k -= 1
            continue
        X[k - 1] -= LD[k + 1:, k - 1] @ X[k + 1:]
        kp = -pivots[k] - 1
        X[[k, kp]] = X[[kp, k]]
        k -= 2
    return X


def _check_ldl_input(A: Tensor, op: str) -> None:
    """torch's checks, in its words (which name the op as torch.linalg.<op>)."""
    if A.ndim < 2 or A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"torch.linalg.{op}: A must be batches of square matrices, but they "
                           f"are {A.shape[-2] if A.ndim > 1 else 1} by {A.shape[-1]} matrices")
    if not A.is_floating_point():
        raise RuntimeError(f"torch.linalg.{op}: Expected a floating point or complex tensor as "
                           f"input. Got {A.dtype.scalar_name}")


def _refuse_complex(A: Tensor, op: str) -> None:
    if A.is_complex():
        raise NotImplementedError(f"linalg.{op}: complex matrices are not supported by ember")


def ldl_factor_ex(A: Tensor, *, hermitian: bool = False, check_errors: bool = False,
                  out=None):
    """(LD, pivots, info): the LDL^T factorisation of symmetric (hermitian) matrices in
    LAPACK's compact form, from their lower triangles; info is k > 0 when D's k-th diagonal
    block is exactly singular."""
    if out is not None:
        raise NotImplementedError("linalg.ldl_factor_ex: the 'out' argument is not supported "
                                  "by ember")
    _check_ldl_input(A, "ldl_factor_ex")
    _refuse_complex(A, "ldl_factor_ex")
    data = A.numpy(force=True)
    batch, n = data.shape[:-2], data.shape[-1]
    LD, pivots = np.empty_like(data), np.empty(batch + (n,), dtype=np.int32)
    info = np.zeros(batch, dtype=np.int32)
    for i in np.ndindex(batch):
        LD[i], pivots[i], info[i] = _factor(data[i])
    if check_errors and info.any():
        raise RuntimeError(f"torch.linalg.ldl_factor_ex: The factorization could not be "
                           f"completed because the input is not invertible: D's diagonal "
                           f"element {int(info[info != 0].flat[0])} is zero")
    return return_types.linalg_ldl_factor_ex(Tensor._wrap(LD), Tensor._wrap(pivots),
                                             Tensor._wrap(info))


def ldl_factor(A: Tensor, *, hermitian: bool = False, out=None):
    """(LD, pivots): ldl_factor_ex without info, raising when a matrix is singular."""
    if out is not None:
        raise NotImplementedError("linalg.ldl_factor: the 'out' argument is not supported by "
                                  "ember")
    LD, pivots, _ = ldl_factor_ex(A, hermitian=hermitian, check_errors=True)
    return return_types.linalg_ldl_factor(LD, pivots)


def ldl_solve(LD: Tensor, pivots: Tensor, B: Tensor, *, hermitian: bool = False,
              out=None) -> Tensor:
    """X with A X = B, for A given by ldl_factor's (LD, pivots); batches broadcast."""
    if out is not None:
        raise NotImplementedError("linalg.ldl_solve: the 'out' argument is not supported by "
                                  "ember")
    _check_ldl_input(LD, "ldl_solve")
    _refuse_complex(LD, "ldl_solve")
    if pivots.dtype.numpy.kind not in "iu":
        raise RuntimeError(f"torch.linalg.ldl_solve: Expected pivots to be integers. Got "
                           f"{pivots.dtype.scalar_name}")
    if LD.dtype != B.dtype:
        raise RuntimeError(f"torch.linalg.ldl_solve: Expected LD and B to have the same dtype, "
                           f"but got LD with dtype {LD.dtype.scalar_name} and B with dtype "
                           f"{B.dtype.scalar_name} instead")
    if B.ndim < 2 or B.shape[-2] != LD.shape[-1]:
        raise RuntimeError(f"Incompatible matrix sizes for torch.linalg.ldl_solve: each A "
                           f"matrix is {LD.shape[-2]} by {LD.shape[-1]} but each b matrix is "
                           f"{B.shape[-2] if B.ndim > 1 else 1} by {B.shape[-1]}")
    batch = np.broadcast_shapes(LD.shape[:-2], pivots.shape[:-1], B.shape[:-2])
    ld = np.broadcast_to(LD.numpy(force=True), batch + tuple(LD.shape[-2:]))
    piv = np.broadcast_to(pivots.numpy(force=True), batch + tuple(pivots.shape[-1:]))
    b = np.broadcast_to(B.numpy(force=True), batch + tuple(B.shape[-2:]))
    X = np.empty(b.shape, dtype=np.result_type(ld, b))
    for i in np.ndindex(batch):
        X[i] = _solve(ld[i], piv[i], b[i])
    return Tensor._wrap(X)
