"""Triangular solves and the solves built on a Cholesky factor.

`SolveTriangular` is the one primitive: back (or forward) substitution, one row at a time
and vectorised over the batch and the right-hand sides. Its backward is again a triangular
solve, so torch.linalg.solve_triangular, torch.triangular_solve and the LU solves
(ember/ops/lu.py) get first and higher derivatives from it. cholesky_solve and
cholesky_inverse have their own node because torch differentiates them as if the whole
factor were used (see `CholeskySolve`).
"""
from __future__ import annotations


import numpy as np

from ._return_types import return_types
from .._tensor import Tensor
from ..autograd.function import Function
from .._modes import current as modes
from .creation import eye
from .linalg import matmul
from .pointwise import _unsupported, _with_out
from .shape import _named, tril, triu

METHODS = ["triangular_solve", "cholesky_solve", "cholesky_inverse"]
INPLACE: list = []

__all__ = ["triangular_solve", "cholesky_solve", "cholesky_inverse"]


def _check_solve_dtype(t: Tensor, kernel: str) -> None:
    """LAPACK's solvers take float32/64 and complex only (no 16-bit floats, no integers)."""
    if t._data.dtype.kind not in "fc" or t._data.dtype.itemsize < 4:
        raise _unsupported(kernel, t.dtype)


def _refuse_complex_grad(name: str, *tensors: Tensor) -> None:
    """Refuse (rather than get wrong) gradients whose rules are written for real matrices
    only: a complex input that will be differentiated raises NotImplementedError."""
    if modes().grad_enabled and any(t.is_complex() and t.requires_grad for t in tensors):
        raise NotImplementedError(f"ember does not differentiate {name} of complex tensors")


def _check_square(A: Tensor, prefix: str) -> None:
    if A.ndim < 2:
        raise RuntimeError(f"{prefix}The input tensor A must have at least 2 dimensions.")
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"{prefix}A must be batches of square matrices, but they are "
                           f"{A.shape[-2]} by {A.shape[-1]} matrices")


def _substitute(A: np.ndarray, B: np.ndarray, upper: bool, unitriangular: bool) -> np.ndarray:
    """X with A X = B for triangular A, reading only A's triangle (batches broadcast).

    A zero on the diagonal gives inf/nan, as LAPACK's trtrs does, instead of an error.
    """
    batch = np.broadcast_shapes(A.shape[:-2], B.shape[:-2])
    A = np.broadcast_to(A, batch + A.shape[-2:])
    X = np.array(np.broadcast_to(B, batch + B.shape[-2:]), dtype=np.result_type(A, B))
    n = A.shape[-1]
    with np.errstate(divide="ignore", invalid="ignore"):
        for i in (reversed(range(n)) if upper else range(n)):
            solved = slice(i + 1, n) if upper else slice(0, i)
            X[..., i, :] -= (A[..., i:i + 1, solved] @ X[..., solved, :])[..., 0, :]
            if not unitriangular:
                X[..., i, :] /= A[..., i, i, None]
    return X


class SolveTriangular(Function):
    """X with A X = B, A upper or lower triangular (and unit diagonal if unitriangular)."""

    backward_name = "LinalgSolveTriangularBackward0"
    saves_outputs = True

    @staticmethod
    def forward(ctx, A, B, upper, unitriangular):
        ctx.save_for_backward(A)
        ctx.args = (upper, unitriangular)
        return _substitute(A, B, upper, unitriangular)

    @staticmethod
    def backward(ctx, grad):
        (A,), X = ctx._unpacked_saved, ctx.output(0)
        upper, unitriangular = ctx.args
        grad_B = SolveTriangular.apply(A.mT, grad, not upper, unitriangular)
        grad_A = None
        if ctx.needs_input_grad[0]:
            # Only A's triangle (without the diagonal when it is taken as ones) was read.
            full = -matmul(grad_B, X.mT)
            offset = 1 if unitriangular else 0
            grad_A = triu(full, offset) if upper else tril(full, -offset)
        return grad_A, grad_B, None, None


def solve_triangular(A: Tensor, B: Tensor, *, upper: bool, left: bool = True,
                     unitriangular: bool = False, out=None) -> Tensor:
    """torch.linalg.solve_triangular: X with A X = B (or X A = B when left=False)."""
    _check_square(A, "linalg.solve_triangular: ")
    if B.ndim < 2:
        raise RuntimeError("linalg.solve_triangular: The input tensor B must have at least 2 "
                           "dimensions.")
    _check_solve_dtype(A, "triangular_solve_cpu")
    _refuse_complex_grad("linalg.solve_triangular", A, B)
    n = A.shape[-1]
    if B.shape[-2 if left else -1] != n:
        equation = "AX = B" if left else "XA = B"
        raise RuntimeError(f"linalg.solve_triangular: Incompatible shapes of A and B for the "
                           f"equation {equation} ({n}x{n} and {B.shape[-2]}x{B.shape[-1]})")
    B = B.to(A.dtype)   # torch solves in A's dtype
    if left:
        result = SolveTriangular.apply(A, B, upper, unitriangular)
    else:
        # X A = B  <=>  A^T X^T = B^T, and A^T has the other triangle.
        result = SolveTriangular.apply(A.mT, B.mT, not upper, unitriangular).mT
    return _with_out(result, out)


def _check_same_dtype(b: Tensor, A: Tensor) -> None:
    if b._data.dtype != A._data.dtype:
        names = (t.dtype.scalar_name for t in (b, A))
        raise RuntimeError("Expected b and A to have the same dtype, but found b of type {} and "
                           "A of type {} instead.".format(*names))


def triangular_solve(input: Tensor, A: Tensor, upper: bool = True, transpose: bool = False,
                     unitriangular: bool = False, *, out=None) -> return_types.triangular_solve:
    """Deprecated torch.triangular_solve: (solution of A X = input, A broadcast to X's batch)."""
    if out is not None:
        raise NotImplementedError("triangular_solve: the 'out' argument is not supported by "
                                  "ember")
    if input.ndim < 2:
        raise RuntimeError(f"torch.triangular_solve: Expected b to have at least 2 dimensions, "
                           f"but it has {input.ndim} dimensions instead")
    _check_square(A, "")
    _check_same_dtype(input, A)
    _check_solve_dtype(A, "triangular_solve_cpu")
    coefficient = A.mT if transpose else A
    solution = solve_triangular(coefficient, input, upper=upper != transpose,
                                unitriangular=unitriangular)
    batch = tuple(solution.shape[:-2])
    cloned = A.expand(*batch, *A.shape[-2:]).clone()
    return return_types.triangular_solve(_named(solution, "TriangularSolveBackward0"),
                                         _named(cloned, "TriangularSolveBackward0"))


class CholeskySolve(Function):
    """X = (L L^H)^-1 B, or (U^H U)^-1 B, from a Cholesky factor.

    The forward reads only the factor's triangle, but the gradient follows torch: it is
    the derivative of (L L^H)^-1 B for the full matrix L, which is non-zero in the unused
    triangle as well (its used triangle is the true derivative).
    """

    backward_name = "CholeskySolveBackward0"
    saves_outputs = True

    @staticmethod
    def forward(ctx, B, factor, upper):
        ctx.save_for_backward(factor)
        ctx.upper = upper
        L = factor.swapaxes(-1, -2).conj() if upper else factor
        Y = _substitute(L, B, upper=False, unitriangular=False)
        return _substitute(L.swapaxes(-1, -2).conj(), Y, upper=True, unitriangular=False)

    @staticmethod
    def backward(ctx, grad):
        (factor,), X = ctx._unpacked_saved, ctx.output(0)
        grad_B = CholeskySolve.apply(grad, factor, ctx.upper)
        grad_factor = None
        if ctx.needs_input_grad[1]:
            # d(A^-1 B) = -A^-1 dA X with dA = dL L^H + L dL^H (or dU^H U + U^H dU).
            common = matmul(grad_B, X.mT)
            common = common + common.mT
            grad_factor = -(matmul(factor, common) if ctx.upper else matmul(common, factor))
        return grad_B, grad_factor, None


def _check_cholesky_solve_args(input: Tensor, factor: Tensor) -> None:
    if input.ndim < 2:
        raise RuntimeError(f"b should have at least 2 dimensions, but has {input.ndim} "
                           "dimensions instead")
    if factor.ndim < 2:
        raise RuntimeError(f"u should have at least 2 dimensions, but has {factor.ndim} "
                           "dimensions instead")
    _check_same_dtype(input, factor)
    _check_solve_dtype(factor, "cholesky_solve_cpu")
    _refuse_complex_grad("cholesky_solve", input, factor)
    n = factor.shape[-1]
    if factor.shape[-2] != n or input.shape[-2] != n:
        raise RuntimeError(f"Incompatible matrix sizes for cholesky_solve: each A matrix is "
                           f"{factor.shape[-2]} by {n} but each b matrix is {input.shape[-2]} "
                           f"by {input.shape[-1]}")


def cholesky_solve(input: Tensor, input2: Tensor, upper: bool = False, *, out=None) -> Tensor:
    """X with A X = input, given A's Cholesky factor input2 (lower, or upper if upper)."""
    _check_cholesky_solve_args(input, input2)
    return _with_out(CholeskySolve.apply(input, input2, upper), out)


def cholesky_inverse(input: Tensor, upper: bool = False, *, out=None) -> Tensor:
    """Inverse of A from its Cholesky factor: (L L^H)^-1, or (U^H U)^-1 if upper."""
    _check_square(input, "cholesky_inverse: ")
    _check_solve_dtype(input, "cholesky_inverse_out_cpu")
    _refuse_complex_grad("cholesky_inverse", input)
    identity = eye(input.shape[-1], dtype=input.dtype)
    inverse = CholeskySolve.apply(identity, input, upper)
    return _with_out(_named(inverse, "CholeskyInverseBackward0"), out)
