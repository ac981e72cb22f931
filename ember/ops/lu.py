"""LU factorisation with partial pivoting, and the solves and unpacking built on it.

NumPy has no LU, so `_factor` writes LAPACK's getrf in NumPy: for each column pick the
first row with the largest magnitude as pivot, swap it up, scale the column below it and
update the trailing block; vectorised over the batch, one Python step per column. The
pivots come out 1-based (int32) as in LAPACK, so they equal torch's.

A = P L U where P is a permutation, L unit lower triangular and U upper triangular; the
packed LU holds L's strictly lower part and U. The gradient of the packed LU (`LuFactor`)
is written with ember ops, so linalg.lu, lu_unpack and the solves, which are built from
it with differentiable ops, get first and higher derivatives from autograd.

torch.linalg names (lu_factor, lu_factor_ex, lu, lu_solve) are exported through
ember/linalg.py; this module's __all__ holds torch's top-level names.
"""
from __future__ import annotations


import numpy as np

from ._return_types import return_types
from .._tensor import Tensor
from ..autograd.function import Function
from .creation import eye
from .joining import cat
from .linalg import LinAlgError, matmul
from .shape import _named, tril, triu
from .pointwise import _with_out
from .triangular import _check_solve_dtype, _refuse_complex_grad, solve_triangular

METHODS = ["lu", "lu_solve"]
INPLACE: list = []

__all__ = ["lu", "lu_unpack", "lu_solve"]


# ---------------------------------------------------------------- factorisation
def _magnitude(a: np.ndarray) -> np.ndarray:
    """LAPACK's pivot measure: |x| for reals, |re| + |im| for complex numbers."""
    return np.abs(a.real) + np.abs(a.imag) if a.dtype.kind == "c" else np.abs(a)


def _swap_rows(stack: np.ndarray, j: int, rows: np.ndarray) -> None:
    """Swap row j of every matrix (or vector) of a stack with its row rows[i], in place."""
    matrices = np.arange(stack.shape[0])
    stack[matrices, j], stack[matrices, rows] = stack[matrices, rows], stack[matrices, j].copy()


def _factor(a: np.ndarray) -> tuple:
    """(packed LU, 1-based int32 pivots, int32 info) of a batch of m x n matrices.

    info is 0, or the 1-based index of the first zero pivot (U is singular); as in LAPACK
    the factorisation still completes then.
    """
    *batch, m, n = a.shape
    k = min(m, n)
    lu = np.array(a).reshape(int(np.prod(batch)), m, n)    # a fresh copy to factor in place
    pivots = np.zeros((lu.shape[0], k), dtype=np.int32)
    info = np.zeros(lu.shape[0], dtype=np.int32)
    for j in range(k):
        p = j + _magnitude(lu[:, j:, j]).argmax(-1)
        pivots[:, j] = p + 1
        _swap_rows(lu, j, p)
        pivot = lu[:, j, j]
        zero = pivot == 0
        info[(info == 0) & zero] = j + 1
        # A zero pivot means a zero column below it: there is nothing to eliminate.
        scale = 1 / np.where(zero, 1, pivot)
        lu[:, j + 1:, j] *= scale[:, None]
        lu[:, j + 1:, j + 1:] -= lu[:, j + 1:, j, None] * lu[:, j, None, j + 1:]
    return lu.reshape(a.shape), pivots.reshape(*batch, k), info.reshape(batch)


def _permutation(pivots: np.ndarray, m: int, dtype) -> np.ndarray:
    """P with A = P L U, from LAPACK's row swaps (row j swapped with row pivots[j] - 1)."""
    batch = pivots.shape[:-1]
    count = int(np.prod(batch))
    order = np.broadcast_to(np.arange(m), (count, m)).copy()
    swaps = pivots.reshape(count, pivots.shape[-1]).astype(np.int64) - 1
    for j in range(swaps.shape[-1]):
        _swap_rows(order, j, swaps[:, j])
    # Row j of P^T A is row order[j] of A, so P has a one at (order[j], j).
    P = np.zeros((count, m, m), dtype=dtype)
    P[np.arange(count)[:, None], order, np.arange(m)] = 1
    return P.reshape(batch + (m, m))


def _unpack(LU: Tensor) -> tuple:
    """Differentiable L (m x k, unit diagonal) and U (k x n) of a packed LU."""
    m, n = LU.shape[-2:]
    k = min(m, n)
    L = tril(LU[..., :, :k], -1) + eye(m, k, dtype=LU.dtype)
    U = triu(LU[..., :k, :])
    return L, U


def _square_grad(L: Tensor, U: Tensor, grad_L: Tensor, grad_U: Tensor) -> Tensor:
    """P^T times the gradient of a square A = P L U, given those of L and U:
    L^-H (tril(L^H gL, -1) + triu(gU U^H)) U^-H."""
    inner = tril(matmul(L.mT, grad_L), -1) + triu(matmul(grad_U, U.mT))
    left = solve_triangular(L.mT, inner, upper=True, unitriangular=True)
    return solve_triangular(U.mT, left, upper=False, left=False)


class LuFactor(Function):
    backward_name = "LinalgLuFactorExBackward0"
    saves_outputs = True

    @staticmethod
    def forward(ctx, A):
        return _factor(A)

    @staticmethod
    def backward(ctx, grad, grad_pivots, grad_info):
        LU, pivots = ctx.output(0), ctx.output(1)
        m, n = LU.shape[-2:]
        k = min(m, n)
        P = Tensor._wrap(_permutation(pivots._data, m, LU._data.dtype))
        L, U = _unpack(LU)
        grad_L, grad_U = tril(grad[..., :, :k], -1), triu(grad[..., :k, :])
        if m == n:
            grad_PA = _square_grad(L, U, grad_L, grad_U)
        elif m > n:
            # Tall: the rows below the square part satisfy L2 = A2 U^-1.
            grad_A2 = solve_triangular(U.mT, grad_L[..., n:, :], upper=False, left=False)
            grad_U = grad_U - matmul(L[..., n:, :].mT, grad_A2)
            grad_A1 = _square_grad(L[..., :n, :], U, grad_L[..., :n, :], grad_U)
            grad_PA = cat([grad_A1, grad_A2], -2)
        else:
            # Wide: the columns right of the square part satisfy U2 = L^-1 P^T A2.
            grad_A2 = solve_triangular(L.mT, grad_U[..., m:], upper=True, unitriangular=True)
            grad_L = grad_L - matmul(grad_A2, U[..., m:].mT)
            grad_A1 = _square_grad(L, U[..., :m], grad_L, grad_U[..., :m])
            grad_PA = cat([grad_A1, grad_A2], -1)
        return matmul(P, grad_PA)


def _check_lu_input(A: Tensor, pivot: bool) -> None:
    if A.ndim < 2:
        raise RuntimeError(f"torch.lu_factor: Expected tensor with 2 or more dimensions. Got "
                           f"size: {list(A.shape)} instead")
    _check_solve_dtype(A, "lu_cpu")
    if not pivot:
        raise RuntimeError("linalg.lu_factor: LU without pivoting is not implemented on the "
                           "CPU")
    _refuse_complex_grad("linalg.lu_factor", A)


def linalg_lu_factor_ex(A: Tensor, *, pivot: bool = True, check_errors: bool = False,
                        out=None) -> return_types.linalg_lu_factor_ex:
    """torch.linalg.lu_factor_ex: packed LU, pivots and LAPACK's info (0 when U is regular)."""
    _check_lu_input(A, pivot)
    LU, pivots, info = LuFactor.apply(A)
    if check_errors:
        _raise_if_singular(info, "torch.linalg.lu_factor_ex")
    return return_types.linalg_lu_factor_ex(LU, pivots, info)


def _raise_if_singular(info: Tensor, name: str) -> None:
    flat = info._data.reshape(-1)
    bad = np.flatnonzero(flat)
    if bad.size:
        where = f"(Batch element {bad[0]}): " if info.ndim else ""
        index = flat[bad[0]]
        raise LinAlgError(f"{name}: {where}U[{index},{index}] is zero and using it on lu_solve "
                          "would result in a division by zero. If you still want to perform "
                          "the factorization, consider calling linalg.lu(A, pivot) or "
                          "linalg.lu_factor_ex(A, pivot)")


def linalg_lu_factor(A: Tensor, *, pivot: bool = True, out=None) -> return_types.linalg_lu_factor:
    """torch.linalg.lu_factor: (packed LU, 1-based int32 pivots); errors if U is singular."""
    LU, pivots, info = linalg_lu_factor_ex(A, pivot=pivot)
    _raise_if_singular(info, "torch.linalg.lu_factor")
    return return_types.linalg_lu_factor(LU, pivots)


def lu(A: Tensor, pivot: bool = True, get_infos: bool = False, out=None) -> tuple:
    """Deprecated torch.lu: (LU, pivots) or (LU, pivots, infos); never raises on singular A."""
    if out is not None:
        raise NotImplementedError("lu: the 'out' argument is not supported by ember")
    LU, pivots, info = linalg_lu_factor_ex(A, pivot=pivot)
    return (LU, pivots, info) if get_infos else (LU, pivots)


# ---------------------------------------------------------------- unpacking
def _check_pivots(LU_data: Tensor, LU_pivots: Tensor) -> None:
    if LU_pivots._data.dtype != np.int32:
        raise RuntimeError("torch.lu_unpack: LU_pivots is expected to be a contiguous tensor of "
                           "torch.int32 dtype.\nNote: this function is intended to be used "
                           "with the output produced by torch.linalg.lu_factor")
    p = LU_pivots._data
    if p.size and (p.min() < 1 or p.max() > LU_data.shape[-2]):
        raise RuntimeError("pivots passed to lu_unpack must be between 1 and LU.size(-2) "
                           "inclusive.Did you properly pass the result of lu_factor?")


def lu_unpack(LU_data: Tensor, LU_pivots: Tensor, unpack_data: bool = True,
              unpack_pivots: bool = True, *, out=None) -> return_types.lu_unpack:
    """P, L, U of a packed LU (an empty tensor for each part not asked for)."""
    if out is not None:
        raise NotImplementedError("lu_unpack: the 'out' argument is not supported by ember")
    if LU_data.ndim < 2:
        raise RuntimeError(f"torch.lu_unpack: Expected tensor with 2 or more dimensions. Got "
                           f"size: {list(LU_data.shape)} instead")
    _check_pivots(LU_data, LU_pivots)
    P = Tensor._wrap(np.zeros(0, dtype=LU_data._data.dtype))
    if unpack_pivots:
        P = Tensor._wrap(_permutation(LU_pivots._data, LU_data.shape[-2], LU_data._data.dtype))
    # Parts not asked for are empty, but still connected to LU_data as in torch.
    L, U = _unpack(LU_data) if unpack_data else (LU_data.reshape(-1)[:0],) * 2
    return return_types.lu_unpack(P, _named(L, "LuUnpackBackward0"), _named(U, "LuUnpackBackward0"))


def linalg_lu(A: Tensor, *, pivot: bool = True, out=None) -> return_types.linalg_lu:
    """torch.linalg.lu: A = P L U, differentiable in L and U."""
    LU, pivots, _ = linalg_lu_factor_ex(A, pivot=pivot)
    P, L, U = lu_unpack(LU, pivots)
    return return_types.linalg_lu(P, _named(L, "LinalgLuBackward0"), _named(U, "LinalgLuBackward0"))


# ---------------------------------------------------------------- solving
def _check_lu_solve_args(LU: Tensor, pivots: Tensor, B: Tensor, left: bool) -> None:
    if LU.ndim < 2 or LU.shape[-1] != LU.shape[-2]:
        raise RuntimeError(f"torch.linalg.lu_solve: A must be batches of square matrices, but "
                           f"they are {LU.shape[-2] if LU.ndim > 1 else 1} by {LU.shape[-1]} "
                           f"matrices")
    if B.ndim < 2:
        raise RuntimeError("linalg.lu_solve: The input tensor B must have at least 2 "
                           "dimensions.")
    n = LU.shape[-1]
    if B.shape[-2 if left else -1] != n:
        equation = "AX = B" if left else "XA = B"
        raise RuntimeError(f"linalg.lu_solve: Incompatible shapes of A and B for the equation "
                           f"{equation} ({n}x{n} and {B.shape[-2]}x{B.shape[-1]})")
    if pivots._data.dtype != np.int32:
        raise RuntimeError("linalg.lu_solve: pivots should be a Tensor of scalar type "
                           "torch.int32")
    if pivots.ndim == 0 or pivots.shape[-1] != n:
        raise RuntimeError("linalg.lu_solve: Number of pivots per batch should be same as the "
                           "dimension of the matrix")
    if LU._data.dtype != B._data.dtype:
        names = (t.dtype.scalar_name for t in (LU, B))
        raise RuntimeError("linalg.lu_solve: Expected LU and B to have the same dtype, but "
                           "found LU of type {} and B of type {} instead".format(*names))


def _adjoint(t: Tensor) -> Tensor:
    """The conjugate transpose (complex tensors never reach here while requiring grad)."""
    return t.mT.conj()


def linalg_lu_solve(LU: Tensor, pivots: Tensor, B: Tensor, *, left: bool = True,
                    adjoint: bool = False, out=None) -> Tensor:
    """torch.linalg.lu_solve: X with A X = B (A^H X = B if adjoint; X A = B if not left)."""
    _check_lu_solve_args(LU, pivots, B, left)
    _refuse_complex_grad("linalg.lu_solve", LU, B)
    if not left:
        # X A = B  <=>  A^H X^H = B^H
        return _with_out(_adjoint(linalg_lu_solve(LU, pivots, _adjoint(B),
                                                  adjoint=not adjoint)), out)
    P = Tensor._wrap(_permutation(pivots._data, LU.shape[-1], LU._data.dtype))
    # The unit-lower solve reads only LU's strict lower part, the upper one only its upper.
    if adjoint:   # A^H = U^H L^H P^T
        Y = solve_triangular(_adjoint(LU), B, upper=False)
        X = matmul(P, solve_triangular(_adjoint(LU), Y, upper=True, unitriangular=True))
    else:         # A = P L U
        Y = solve_triangular(LU, matmul(P.mT, B), upper=False, unitriangular=True)
        X = solve_triangular(LU, Y, upper=True)
    return _with_out(_named(X, "LinalgLuSolveBackward0"), out)


def lu_solve(input: Tensor, LU_data: Tensor, LU_pivots: Tensor, *, out=None) -> Tensor:
    """Deprecated torch.lu_solve(b, LU_data, LU_pivots) = linalg.lu_solve(LU, pivots, b)."""
    return linalg_lu_solve(LU_data, LU_pivots, input, out=out)
