"""torch.linalg: norms, inverses, determinants, solves and decompositions on numpy.linalg.

Every function works on batches of matrices (the last two dimensions) and, except eig and
eigvals (complex results, see _eig.py), is differentiable; backward passes are
written in ember ops, so higher derivatives work too. Gathered here from elsewhere: the
products (matmul, multi_dot, cross) from ember/ops/linalg.py, matrix_exp from
ember/ops/matrix_exp.py, householder_product from ember/ops/householder.py, the triangular
and LU solvers from ember/ops/triangular.py and ember/ops/lu.py, lstsq from _lstsq.py.
torch's older top-level names (torch.det, torch.svd, torch.norm ...) are in _legacy.py.
"""
from __future__ import annotations

import math

import numpy as np

from ..ops._return_types import return_types
from .._dtype import LOW_PRECISION_NUMPY
from .._recorded_call import replayed_call
from .._tensor import Tensor
from ..autograd.function import Function
from ._eig import eig, eigvals
from ._ldl import ldl_factor, ldl_factor_ex, ldl_solve
from ._lstsq import lstsq
from ..ops.householder import householder_product
from ..ops.joining import cat
from ..ops.linalg import _cross, _in_float32, matmul, multi_dot
from ..ops.matrix_exp import matrix_exp
from ..ops.pointwise import where
from ..ops.reduction import VectorNorm, _check_norm_input, reduce_dims
from ..ops.shape import _named, diagonal as _diagonal
from ..ops.lu import (_factor as _lu_factor_arrays, linalg_lu as lu, linalg_lu_factor as lu_factor,
                     linalg_lu_factor_ex as lu_factor_ex, linalg_lu_solve as lu_solve)
from ..ops.triangular import _refuse_complex_grad, solve_triangular
from ..amp.policy import FP32, LOWER, autocast_op

__all__ = ["LinAlgError", "norm", "vector_norm", "matrix_norm", "cond", "inv", "inv_ex", "det",
           "slogdet", "solve", "solve_ex", "solve_triangular", "lstsq", "cholesky",
           "cholesky_ex", "qr", "svd", "svdvals", "eig", "eigvals", "eigh", "eigvalsh",
           "lu_factor", "lu_factor_ex", "lu", "lu_solve", "pinv", "matrix_rank",
           "matrix_power", "tensorinv", "tensorsolve", "cross", "multi_dot", "matmul",
           "vecdot", "vander", "diagonal", "matrix_exp", "householder_product", "ldl_factor",
           "ldl_factor_ex", "ldl_solve"]


from .._naming import set_public_module
from ..ops.linalg import LinAlgError
from ._checks import _check_float, _check_square, _const, _identity, _matrices, _type_name

set_public_module(__name__, LinAlgError)        # torch.linalg.LinAlgError, as torch names it


# ---------------------------------------------------------------- norms
def vector_norm(x: Tensor, ord: float = 2, dim=None, keepdim: bool = False, *, dtype=None,
                out=None) -> Tensor:
    """The `ord`-norm of `x` seen as a vector: over every element by default, or over the dimensions
    in `dim` (ord may be any real, inf or -inf; 0 counts non-zeros)."""
    axes = reduce_dims(x, dim)
    _check_norm_input(x, ord, axes)
    return _out(VectorNorm.apply(x, float(ord), axes, keepdim, dtype), out)


def _out(result: Tensor, out) -> Tensor:
    if out is None:
        return result
    from ..ops.pointwise import _with_out
    return _with_out(result, out)


def matrix_norm(A: Tensor, ord="fro", dim=(-2, -1), keepdim: bool = False, *, dtype=None,
                out=None) -> Tensor:
    """The matrix norm of `A` over the two dimensions `dim`: 'fro' (default), 'nuc', inf, -inf, 1,
    -1, 2 or -2; batch dimensions are kept."""
    _check_float(A, "matrix_norm")
    if dtype is not None:
        A = A.to(dtype)
    if A.ndim < 2:
        raise RuntimeError("linalg.matrix_norm: The input tensor A must have at least 2 "
                           "dimensions.")
    if ord == "fro":
        return _out(vector_norm(A, 2, dim, keepdim), out)
    rows, cols = (A._wrap_dim(d) for d in dim)
    # Bring the two matrix dims to the end, rows before columns.
    rest = [d for d in range(A.ndim) if d not in (rows, cols)]
    M = A.permute(*rest, rows, cols)
    if ord == "nuc":
        result, name = svdvals(M).sum(-1), "SumBackward1"
    elif ord in (2, -2, 1, -1, math.inf, -math.inf):
        values = svdvals(M) if ord in (2, -2) else M.abs().sum(-2 if ord in (1, -1) else -1)
        # amax/amin: tied entries (a zero matrix's singular values) share the gradient
        result = values.amax(-1) if ord > 0 else values.amin(-1)
        name = "AmaxBackward0" if ord > 0 else "AminBackward0"
    else:
        raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    if keepdim:
        for d in sorted((rows, cols)):
            result = result.unsqueeze(d)
    return _out(_named(result, name), out)


def norm(A: Tensor, ord=None, dim=None, keepdim: bool = False, *, out=None,
         dtype=None) -> Tensor:
    """vector_norm or matrix_norm, chosen from `ord` and `dim` as torch.linalg.norm does."""
    if isinstance(dim, int):
        dim = (dim,)
    if dim is not None and len(dim) == 2 or (dim is None and isinstance(ord, str)) or \
            (dim is None and ord is not None and A.ndim == 2):
        return matrix_norm(A, "fro" if ord is None else ord, dim or (-2, -1), keepdim,
                           dtype=dtype, out=out)
    if ord is not None and dim is None and A.ndim != 1:
        raise RuntimeError(f"linalg.norm: If dim is not specified but ord is, the input must "
                           f"be 1D or 2D. Got {A.ndim}D.")
    return vector_norm(A, 2 if ord is None else ord, dim, keepdim, dtype=dtype, out=out)


# ---------------------------------------------------------------- inverse, det, solve
def _first_failure(info: np.ndarray) -> tuple:
    """(prefix naming the batch element, info value) of the first failed matrix."""
    flat = info.reshape(-1)
    bad = int(np.flatnonzero(flat)[0])
    return (f"(Batch element {bad}): " if info.ndim else ""), int(flat[bad])


def _inverse_error(name: str, data: np.ndarray) -> LinAlgError:
    prefix, index = _first_failure(_lu_factor_arrays(data)[2])
    return LinAlgError(f"{name}: {prefix}The diagonal element {index} is zero, the inversion "
                       "could not be completed because the input matrix is singular.")


class Inv(Function):
    backward_name = "LinalgInvExBackward0"
    holomorphic = True
    saves_outputs = True

    @staticmethod
    def forward(ctx, A, name):
        try:
            return _in_float32(np.linalg.inv, A)
        except np.linalg.LinAlgError:
            raise _inverse_error(name, A) from None

    @staticmethod
    def backward(ctx, grad):
        inverse = ctx.output(0).mT
        return -matmul(matmul(inverse, grad), inverse), None


@autocast_op(FP32)
def inv(A: Tensor, *, out=None) -> Tensor:
    """Inverse of the square matrix (or batch of matrices) `A`; a singular matrix raises."""
    _check_square(A, "inv")
    return _out(Inv.apply(A, "linalg.inv"), out)


def _singular_fallback(A: Tensor, B: Tensor) -> tuple:
    """(X, info) solving A X = B through LU for a batch holding singular matrices:
    LAPACK's info, and the infs and nans its substitution produces."""
    LU, pivots, info = lu_factor_ex(A)
    return lu_solve(LU, pivots, B), info


@autocast_op(FP32)
def inv_ex(A: Tensor, *, check_errors: bool = False, out=None) -> return_types.linalg_inv_ex:
    """inv, with LAPACK's info (0, or the index of U's first zero diagonal element) instead
    of an error for singular matrices (unless check_errors)."""
    _check_square(A, "inv_ex")
    try:
        inverse, info = Inv.apply(A, "linalg.inv_ex"), _zero_info(A)
    except LinAlgError:
        if check_errors:
            raise
        identity = _identity(A.shape[-1], A)
        inverse, info = _singular_fallback(A, identity)
    return return_types.linalg_inv_ex(_named(_out(inverse, out), "LinalgInvExBackward0"), info)


def _zero_info(A: Tensor) -> Tensor:
    return Tensor._wrap(np.zeros(A.shape[:-2], dtype=np.int32))


class Det(Function):
    backward_name = "LinalgDetBackward0"
    holomorphic = True
    saves_outputs = True

    @staticmethod
    def forward(ctx, A):
        ctx.save_for_backward(A)
        return _in_float32(np.linalg.det, A)

    @staticmethod
    def backward(ctx, grad):
        (A,), d = ctx._unpacked_saved, ctx.output(0)
        if bool((d != 0).all()):     # a branch on values: compile runs the rest eagerly
            # d det(A) / dA = det(A) * inv(A)^T, differentiable again through inv.
            return _matrices(grad * d) * inv(A).mT
        return _matrices(grad) * _cofactor_matrix(A)


@replayed_call
def _cofactor_matrix(A: Tensor) -> Tensor:
    """A's cofactors (d det / dA) in its dtype, as a constant computed from its values."""
    return _const(_cofactors(A._data.astype(np.float64)), A)


def _cofactors(A: np.ndarray) -> np.ndarray:
    """Cofactor matrix (= d det / dA) through the SVD, valid for singular matrices too."""
    U, S, Vh = np.linalg.svd(A)
    n = S.shape[-1]
    others = np.stack([np.prod(np.delete(S, i, axis=-1), axis=-1) for i in range(n)], -1)
    sign = np.linalg.det(U) * np.linalg.det(Vh)
    return (sign[..., None, None] * U * others[..., None, :]) @ Vh


def det(A: Tensor, *, out=None) -> Tensor:
    """Determinant of the square matrix (or batch of matrices) `A`."""
    _check_square(A, "det")
    return _out(Det.apply(A), out)


class Slogdet(Function):
    backward_name = "LinalgSlogdetBackward0"

    @staticmethod
    def forward(ctx, A):
        ctx.save_for_backward(A)
        # torch records the sign too (it is differentiable for complex input); for real
        # input its gradient is zero and backward ignores it.
        sign, logabsdet = _in_float32(lambda a: np.stack(np.linalg.slogdet(a)), A)
        return sign, logabsdet

    @staticmethod
    def backward(ctx, grad_sign, grad_logabsdet):
        (A,) = ctx._unpacked_saved
        return _matrices(grad_logabsdet) * inv(A).mT


def slogdet(A: Tensor, *, out=None) -> return_types.linalg_slogdet:
    """Sign (or phase, for complex input) and log of the absolute value of the determinant of `A`,
    as a named tuple (sign, logabsdet); stable where det itself would overflow."""
    _check_square(A, "slogdet")
    _refuse_complex_grad("linalg.slogdet", A)
    return return_types.linalg_slogdet(*Slogdet.apply(A))


class Solve(Function):
    """X with A @ X = B; `vector` marks B as a (batch of) vector(s)."""

    backward_name = "LinalgSolveExBackward0"
    holomorphic = True
    saves_outputs = True

    @staticmethod
    def forward(ctx, A, B, vector):
        ctx.save_for_backward(A)
        ctx.vector = vector
        b = B[..., None] if vector else B
        try:
            X = _in_float32(np.linalg.solve, A, b)
        except np.linalg.LinAlgError:
            raise LinAlgError("torch.linalg.solve: The solver failed because the input matrix "
                              "is singular.") from None
        return X[..., 0] if vector else X

    @staticmethod
    def backward(ctx, grad):
        (A,), X = ctx._unpacked_saved, ctx.output(0)
        need_A, need_B = ctx.needs_input_grad[:2]
        grad_B = Solve.apply(A.mT, grad, ctx.vector)
        grad_A = None
        if need_A:
            if ctx.vector:
                grad_A = -(grad_B.unsqueeze(-1) * X.unsqueeze(-2))
            else:
                grad_A = -matmul(grad_B, X.mT)
        return grad_A, grad_B if need_B else None, None


@autocast_op(FP32)
def solve(A: Tensor, B: Tensor, *, left: bool = True, out=None) -> Tensor:
    """Solution X of A X = B (or X A = B when left=False) for square, invertible `A`, batched and
    broadcast over leading dimensions."""
    _check_square(A, "solve")
    if A._data.dtype != B._data.dtype:
        raise RuntimeError(f"linalg.solve: Expected A and B to have the same dtype, but found "
                           f"A of type {_type_name(A)} and B of type {_type_name(B)} instead")
    if not left:
        # X A = B  <=>  A^T X^T = B^T
        return _out(solve(A.mT, B.mT).mT, out)
    vector = B.ndim == 1 or (B.ndim == A.ndim - 1 and tuple(B.shape) == tuple(A.shape[:-1]))
    if B.shape[-1 if vector else -2] != A.shape[-1]:
        raise RuntimeError(f"linalg.solve: Incompatible shapes of A and B for the equation "
                           f"AX = B ({A.shape[-2]}x{A.shape[-1]} and "
                           f"{'x'.join(str(n) for n in B.shape[-2:])})")
    return _out(Solve.apply(A, B, vector), out)


def solve_ex(A: Tensor, B: Tensor, *, left: bool = True, check_errors: bool = False,
             out=None) -> return_types.linalg_solve_ex:
    """solve, with LAPACK's info instead of an error for singular matrices."""
    try:
        result, info = solve(A, B, left=left), _zero_info(A)
    except LinAlgError:
        if check_errors:
            raise LinAlgError("torch.linalg.solve_ex: The solver failed because the input "
                              "matrix is singular.") from None
        vector = B.ndim == 1 or (B.ndim == A.ndim - 1 and tuple(B.shape) == tuple(A.shape[:-1]))
        if not left:
            result, info = _singular_fallback(A.mT, B.mT)
            result = result.mT
        elif vector:
            result, info = _singular_fallback(A, B.unsqueeze(-1))
            result = result.squeeze(-1)
        else:
            result, info = _singular_fallback(A, B)
    return return_types.linalg_solve_ex(_named(_out(result, out), "LinalgSolveExBackward0"), info)


# ---------------------------------------------------------------- decompositions
class Cholesky(Function):
    backward_name = "LinalgCholeskyExBackward0"
    saves_outputs = True

    @staticmethod
    def forward(ctx, A):
        try:
            return _in_float32(np.linalg.cholesky, A)
        except np.linalg.LinAlgError:
            info = _partial_cholesky(A.astype(np.float64))[1]
            raise _cholesky_error("linalg.cholesky", info) from None

    @staticmethod
    def backward(ctx, grad):
        L = ctx.output(0)
        n = L.shape[-1]
        ones = _identity(n, L).new_ones((n, n))
        lower, strictly_lower = ones.tril(), ones.tril(-1)
        # Lower triangle of L^T gL, mirrored into a symmetric matrix (diagonal kept once).
        phi = matmul(L.mT, grad) * lower
        phi = (phi + (phi * strictly_lower).mT) * 0.5
        L_inv = inv(L)
        return matmul(matmul(L_inv.mT, phi), L_inv)


def _partial_cholesky(a: np.ndarray) -> tuple:
    """(L, info) by LAPACK's unblocked algorithm, column by column over the whole batch.

    A matrix whose leading minor of order j is not positive-definite stops at column j
    (info = j) with that column's pivot on the diagonal and, like LAPACK, A's values
    left in the columns it did not reach.
    """
    *batch, n, _ = a.shape
    L = np.tril(a).reshape(-1, n, n)
    info = np.zeros(L.shape[0], dtype=np.int32)
    for j in range(n):
        active = info == 0
        pivot = L[:, j, j] - (L[:, j, :j] * L[:, j, :j].conj()).sum(-1).real
        failed = active & ~(pivot > 0)
        info[failed] = j + 1
        L[failed, j, j] = pivot[failed]
        ok = active & ~failed
        root = np.sqrt(pivot[ok])
        L[ok, j, j] = root
        column = L[ok, j + 1:, j] - (L[ok, j + 1:, :j] @ L[ok, j, :j, None].conj())[..., 0]
        L[ok, j + 1:, j] = column / root[:, None]
    return L.reshape(a.shape), info.reshape(batch)


def _cholesky_error(name: str, info: np.ndarray) -> LinAlgError:
    """Name the first leading minor that is not positive-definite, as torch does."""
    prefix, order = _first_failure(info)
    return LinAlgError(f"{name}: {prefix}The factorization could not be completed because the "
                       f"input is not positive-definite (the leading minor of order {order} "
                       "is not positive-definite).")


@autocast_op(FP32)
def cholesky(A: Tensor, *, upper: bool = False, out=None) -> Tensor:
    """Cholesky factor of the Hermitian positive-definite `A`: lower triangular L with A = L L^H
    (upper=True gives U with A = U^H U)."""
    _check_square(A, "cholesky")
    _refuse_complex_grad("linalg.cholesky", A)
    L = Cholesky.apply(A)
    return _out(L.mT if upper else L, out)


@autocast_op(FP32)
def cholesky_ex(A: Tensor, *, upper: bool = False, check_errors: bool = False,
                out=None) -> return_types.linalg_cholesky_ex:
    """cholesky, with LAPACK's info (the order of the first leading minor that is not
    positive-definite, else 0) instead of an error."""
    _check_square(A, "cholesky_ex")
    try:
        L, info = cholesky(A, upper=upper), _zero_info(A)
    except LinAlgError:
        L_data, info_data = _partial_cholesky(A._data)
        if check_errors:
            raise _cholesky_error("linalg.cholesky_ex", info_data) from None
        L, info = Tensor._wrap(L_data.swapaxes(-1, -2) if upper else L_data), \
            Tensor._wrap(info_data)
    return return_types.linalg_cholesky_ex(_out(L, out), info)


def _in_float32_tuple(fn, a: np.ndarray) -> tuple:
    """Run a NumPy decomposition, 16-bit floats computed in float32 and rounded back."""
    if a.dtype in LOW_PRECISION_NUMPY:
        return tuple(np.asarray(r).astype(a.dtype) for r in fn(a.astype(np.float32)))
    return tuple(fn(a))


def _symmetric_from_lower(M: Tensor) -> Tensor:
    """The symmetric matrix whose lower triangle (with the diagonal) is M's."""
    return M.tril() + M.tril(-1).mT


class Qr(Function):
    backward_name = "LinalgQrBackward0"
    saves_outputs = True

    @staticmethod
    def forward(ctx, A, mode):
        ctx.mode = mode
        if mode == "r":
            return np.zeros(0, dtype=A.dtype), _in_float32(
                lambda a: np.linalg.qr(a, mode="r"), A)
        return _in_float32_tuple(lambda a: np.linalg.qr(a, mode=mode), A)

    @staticmethod
    def backward(ctx, grad_Q, grad_R):
        if ctx.mode == "r":
            raise RuntimeError("The derivative of linalg.qr depends on Q, which is not computed "
                               "when mode='r'. Please use linalg.qr(A, mode='reduced') if you "
                               "are going to differentiate through linalg.qr.")
        Q, R = ctx.output(0), ctx.output(1)
        m, n = Q.shape[-2], R.shape[-1]
        if ctx.mode == "complete" and m > n:
            raise RuntimeError("The QR decomposition is not differentiable when "
                               "mode='complete' and nrows > ncols.")
        if m >= n:
            return _qr_square_grad(Q, R, grad_Q, grad_R), None
        # Wide A = [A1 A2] = Q [R1 R2]: Q and R1 come from A1 alone, and R2 = Q^T A2.
        R2, grad_R2 = R[..., m:], grad_R[..., m:]
        grad_Q = grad_Q + matmul(matmul(Q, R2), grad_R2.mT)
        grad_A1 = _qr_square_grad(Q, R[..., :m], grad_Q, grad_R[..., :m])
        return cat([grad_A1, matmul(Q, grad_R2)], -1), None


def _qr_square_grad(Q: Tensor, R: Tensor, grad_Q: Tensor, grad_R: Tensor) -> Tensor:
    """Gradient of A = Q R with R square and invertible: (gQ + Q sym(M)) R^-T,
    M = R gR^T - gQ^T Q, sym mirroring M's lower triangle."""
    M = matmul(R, grad_R.mT) - matmul(grad_Q.mT, Q)
    B = grad_Q + matmul(Q, _symmetric_from_lower(M))
    return solve_triangular(R.mT, B, upper=False, left=False)


@autocast_op(FP32)
def qr(A: Tensor, mode: str = "reduced", *, out=None) -> return_types.linalg_qr:
    """QR decomposition A = Q R as a named tuple (Q, R); mode is 'reduced' (default), 'complete' or
    'r' (R only, Q empty)."""
    _check_float(A, "qr")
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError(f"qr received unrecognized mode '{mode}' but expected one of "
                           f"'reduced' (default), 'r', or 'complete'")
    _refuse_complex_grad("linalg.qr", A)
    return return_types.linalg_qr(*Qr.apply(A, mode))


class Svd(Function):
    """A = U diag(S) Vh; with full_matrices the extra columns of U and rows of Vh are an
    arbitrary basis, so (as in torch) their gradients are ignored."""

    backward_name = "LinalgSvdBackward0"
    saves_outputs = True

    @staticmethod
    def forward(ctx, A, full_matrices):
        return _in_float32_tuple(lambda a: np.linalg.svd(a, full_matrices=full_matrices), A)

    @staticmethod
    def backward(ctx, grad_U, grad_S, grad_Vh):
        U, S, Vh = (ctx.output(i) for i in range(3))
        k = S.shape[-1]
        U, grad_U = U[..., :k], grad_U[..., :k]
        V, grad_V = Vh[..., :k, :].mT, grad_Vh[..., :k, :].mT
        return _svd_grad(U, S, V, grad_U, grad_S, grad_V), None


def _svd_grad(U: Tensor, S: Tensor, V: Tensor, grad_U: Tensor, grad_S: Tensor,
              grad_V: Tensor) -> Tensor:
    """Gradient of A = U diag(S) V^T (reduced) for distinct, non-zero singular values:

        U (J S + S K + diag(gS)) V^T + (I - U U^T) gU S^-1 V^T + U S^-1 gV^T (I - V V^T)

    with J = F o (U^T gU - gU^T U), K = F o (V^T gV - gV^T V), F_ij = 1 / (s_j^2 - s_i^2).
    """
    k = S.shape[-1]
    identity = _identity(k, S)
    squares = S * S
    F = (1 - identity) / (squares.unsqueeze(-2) - squares.unsqueeze(-1) + identity)
    UtgU, VtgV = matmul(U.mT, grad_U), matmul(V.mT, grad_V)
    J, K = F * (UtgU - UtgU.mT), F * (VtgV - VtgV.mT)
    inner = J * S.unsqueeze(-2) + S.unsqueeze(-1) * K + grad_S.unsqueeze(-1) * identity
    grad_A = matmul(matmul(U, inner), V.mT)
    if U.shape[-2] > k:     # the part of gU outside U's column space
        outside = grad_U - matmul(U, UtgU)
        grad_A = grad_A + matmul(outside / S.unsqueeze(-2), V.mT)
    if V.shape[-2] > k:     # the part of gV outside V's column space
        outside = grad_V - matmul(V, VtgV)
        grad_A = grad_A + matmul(U / S.unsqueeze(-2), outside.mT)
    return grad_A


@autocast_op(FP32)
def svd(A: Tensor, full_matrices: bool = True, *, driver=None, out=None) -> return_types.linalg_svd:
    """Singular value decomposition A = U diag(S) Vh as a named tuple (U, S, Vh); S is sorted in
    descending order, full_matrices=False gives the thin factors."""
    _check_float(A, "svd")
    if driver is not None:
        raise NotImplementedError("linalg.svd: the 'driver' argument (CUDA only) is not "
                                  "supported by ember")
    _refuse_complex_grad("linalg.svd", A)
    return return_types.linalg_svd(*Svd.apply(A, full_matrices))


class Svdvals(Function):
    backward_name = "LinalgSvdBackward0"

    @staticmethod
    def forward(ctx, A):
        U, S, Vh = _in_float32_tuple(lambda a: np.linalg.svd(a, full_matrices=False), A)
        ctx.vectors = (U, Vh)
        return S

    @staticmethod
    def backward(ctx, grad):
        # dA = U diag(dS) Vh (the singular vectors are held as constants).
        U, Vh = ctx.vectors
        return matmul(_const(U, grad) * grad.unsqueeze(-2), _const(Vh, grad))


@autocast_op(FP32)
def svdvals(A: Tensor, *, driver=None, out=None) -> Tensor:
    """Singular values of `A`, in descending order (the S of svd without U and Vh)."""
    _check_float(A, "svdvals")
    _refuse_complex_grad("linalg.svdvals", A)
    return _out(Svdvals.apply(A), out)


class Eigh(Function):
    backward_name = "LinalgEighBackward0"

    @staticmethod
    def forward(ctx, A, UPLO):
        w, V = _in_float32_tuple(lambda a: np.linalg.eigh(a, UPLO=UPLO), A)
        ctx.result = (w, V)
        return w, V

    @staticmethod
    def backward(ctx, grad_w, grad_V):
        # A = V diag(w) V^T:  dA = V (diag(dw) + skew(V^T dV) / (w_j - w_i)) V^T
        w, V = ctx.result
        V, w = _const(V, grad_w), _const(w, grad_w)
        gaps = w.unsqueeze(-2) - w.unsqueeze(-1)
        same = gaps == 0
        inv_gaps = where(same, 0.0, 1.0 / where(same, 1.0, gaps))
        rotation = matmul(V.mT, grad_V)
        inner = (rotation - rotation.mT) * 0.5 * inv_gaps
        inner = inner + grad_w.unsqueeze(-1) * _identity(w.shape[-1], grad_w)
        return matmul(matmul(V, inner), V.mT), None


@autocast_op(FP32)
def eigh(A: Tensor, UPLO: str = "L", *, out=None) -> return_types.linalg_eigh:
    """Eigenvalues (ascending) and eigenvectors of the Hermitian/symmetric `A`, as a named tuple
    (eigenvalues, eigenvectors); only the triangle named by UPLO is read."""
    _check_square(A, "eigh")
    _refuse_complex_grad("linalg.eigh", A)
    return return_types.linalg_eigh(*Eigh.apply(A, UPLO))


@autocast_op(FP32)
def eigvalsh(A: Tensor, UPLO: str = "L", *, out=None) -> Tensor:
    """Eigenvalues of the Hermitian/symmetric `A` in ascending order, reading only the triangle
    named by UPLO."""
    return _out(_named(eigh(A, UPLO).eigenvalues, "LinalgEighBackward0"), out)


def _tolerance(S: np.ndarray, shape: tuple, atol, rtol) -> np.ndarray:
    """torch's cut-off for 'zero' singular values: max(atol, rtol * largest), where rtol
    defaults to eps * max(m, n) wherever atol is not given as positive. atol and rtol are
    numbers or tensors broadcasting against the batch dims."""
    atol, rtol = (v.numpy(force=True) if isinstance(v, Tensor) else v for v in (atol, rtol))
    if rtol is None:
        default = max(shape[-2:]) * np.finfo(S.dtype).eps
        rtol = default if atol is None else np.where(np.asarray(atol) > 0, 0.0, default)
    largest = S.max(-1, initial=0)
    return np.maximum(0.0 if atol is None else atol, rtol * largest)[..., None]


def _pinv_array(a: np.ndarray, atol, rtol, hermitian: bool) -> np.ndarray:
    """Pseudo-inverse through the SVD (or eigh), inverting the singular values kept."""
    if hermitian:
        S, U = np.linalg.eigh(a)
        Vh = np.swapaxes(U, -1, -2).conj()
        magnitude = np.abs(S)
    else:
        U, S, Vh = np.linalg.svd(a, full_matrices=False)
        magnitude = S
    kept = magnitude > _tolerance(magnitude, a.shape, atol, rtol)
    inverse = np.where(kept, 1 / np.where(kept, S, 1), 0)
    return np.swapaxes(Vh, -1, -2).conj() * inverse[..., None, :] @ np.swapaxes(U, -1, -2).conj()


class Pinv(Function):
    backward_name = "LinalgPinvBackward0"
    saves_outputs = True

    @staticmethod
    def forward(ctx, A, atol, rtol, hermitian):
        ctx.save_for_backward(A)
        return _in_float32(lambda a: _pinv_array(a, atol, rtol, hermitian), A)

    @staticmethod
    def backward(ctx, grad):
        # Golub & Pereyra's derivative of X = pinv(A) (valid where the rank is constant):
        # -X^T g X^T + (I - A X) g^T X X^T + X^T X g^T (I - X A)
        (A,), X = ctx._unpacked_saved, ctx.output(0)
        Xt = X.mT
        beside_columns = grad.mT - matmul(matmul(A, X), grad.mT)
        beside_rows = grad.mT - matmul(grad.mT, matmul(X, A))
        return (-matmul(matmul(Xt, grad), Xt) + matmul(matmul(beside_columns, X), Xt)
                + matmul(matmul(Xt, X), beside_rows), None, None, None)


def pinv(A: Tensor, *, atol=None, rtol=None, hermitian: bool = False, out=None) -> Tensor:
    """Moore-Penrose pseudo-inverse of `A`, computed from its SVD (or its eigendecomposition when
    hermitian=True); singular values below the atol/rtol cut-off count as zero."""
    _check_float(A, "pinv")
    _refuse_complex_grad("linalg.pinv", A)
    atol, rtol = (v.numpy(force=True) if isinstance(v, Tensor) else v for v in (atol, rtol))
    return _out(Pinv.apply(A, atol, rtol, hermitian), out)


def matrix_rank(A: Tensor, *, atol=None, rtol=None, hermitian: bool = False,
                out=None) -> Tensor:
    """Number of singular values above max(atol, rtol * largest singular value)."""
    _check_float(A, "matrix_rank")
    data = A._data.astype(np.float32) if A._data.dtype in LOW_PRECISION_NUMPY else A._data
    S = np.abs(np.linalg.eigvalsh(data)) if hermitian else \
        np.linalg.svd(data, compute_uv=False)
    rank = (S > _tolerance(S, data.shape, atol, rtol)).sum(-1).astype(np.int64)
    return _out(Tensor._wrap(np.asarray(rank)), out)


def matrix_power(A: Tensor, n: int, *, out=None) -> Tensor:
    """`A` multiplied by itself `n` times (n = 0 gives the identity, a negative n the inverse's
    power), batched over leading dimensions."""
    if A.ndim < 2 or A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"linalg.matrix_power: A must be batches of square matrices, but "
                           f"they are {A.shape[-2] if A.ndim > 1 else 1} by {A.shape[-1]} "
                           f"matrices")
    if n == 0:
        # torch copies the identity into a tensor connected to A (with a zero gradient).
        eye = _identity(A.shape[-1], A)
        everywhere = Tensor._wrap(np.ones(A.shape, dtype=bool))
        return _out(_named(where(everywhere, eye, A), "CopyBackwards"), out)
    base = inv(A) if n < 0 else A
    result = A.clone() if n == 1 else base
    for _ in range(abs(n) - 1):
        result = matmul(result, base)
    return _out(result, out)


def cross(input: Tensor, other: Tensor, *, dim: int = -1, out=None) -> Tensor:
    """Cross product of 3-vectors along dimension `dim` (default -1) of input and other, which
    broadcast against each other."""
    return _cross(input, other, dim, out)


@autocast_op(LOWER)
def vecdot(x: Tensor, y: Tensor, *, dim: int = -1, out=None) -> Tensor:
    """Dot product of the vectors along dimension `dim` of x and y: sum(x.conj() * y, dim), with
    broadcasting."""
    if x.is_complex():
        raise NotImplementedError("linalg.vecdot of complex tensors is not supported by ember")
    return _out((x * y).sum(dim), out)


# ---------------------------------------------------------------- built from the above
def cond(A: Tensor, p=None, *, out=None) -> Tensor:
    """Condition number: largest / smallest singular value for p in (None, 2, -2), else
    norm(A, p) * norm(inv(A), p) (inf for singular matrices)."""
    if p not in (None, 2, -2, 1, -1, math.inf, -math.inf, "fro", "nuc"):
        raise RuntimeError(f"linalg.cond got an invalid norm type: {p}")
    if A.ndim < 2:
        raise RuntimeError("linalg.cond: The input tensor A must have at least 2 dimensions.")
    if p in (None, 2, -2):
        _check_float(A, "svd")
        S = svdvals(A)
        largest, smallest = S[..., 0], S[..., -1]
        return _out(smallest / largest if p == -2 else largest / smallest, out)
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"linalg.cond(ord={p}): A must be batches of square matrices, but "
                           f"they are {A.shape[-2]} by {A.shape[-1]} matrices")
    inverse = inv_ex(A).inverse
    product = matrix_norm(A, p) * matrix_norm(inverse, p)
    # A singular matrix has an infinite condition number (its 'inverse' holds infs/nans).
    return _out(product.nan_to_num(math.inf, math.inf), out)


def tensorinv(A: Tensor, ind: int = 2, *, out=None) -> Tensor:
    """The tensor X with tensordot(X, A, ind) = identity (A's leading `ind` dims as rows)."""
    if ind <= 0:
        raise RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")
    rows, cols = A.shape[:ind], A.shape[ind:]
    if math.prod(rows) != math.prod(cols):
        raise RuntimeError(f"Expected self to satisfy the requirement prod(self.shape[ind:]) == "
                           f"prod(self.shape[:ind]), but got {math.prod(cols)} != "
                           f"{math.prod(rows)}")
    inverse = inv(A.reshape(math.prod(rows), math.prod(cols)))
    return _out(inverse.reshape((*cols, *rows)), out)


def tensorsolve(A: Tensor, B: Tensor, dims=None, *, out=None) -> Tensor:
    """X with tensordot(A, X, X.ndim) = B; `dims` first moves those dims of A to the end."""
    if dims is not None:
        moved = [d % A.ndim for d in dims]
        A = A.permute(*[d for d in range(A.ndim) if d not in moved], *moved)
    unknowns = A.shape[B.ndim:]
    n = math.prod(unknowns)
    if B.numel() != n:
        raise RuntimeError(f"Expected self to satisfy the requirement prod(self.shape[other.ndim:"
                           f"]) == prod(self.shape[:other.ndim]), but got {n} != {B.numel()}")
    return _out(solve(A.reshape(-1, n), B.reshape(-1)).reshape(tuple(unknowns)), out)


def vander(x: Tensor, *, N: int | None = None) -> Tensor:
    """Vandermonde matrix: columns x^0, x^1, ..., x^(N-1) (N defaults to x.shape[-1])."""
    if x._data.dtype == np.bool_:
        raise RuntimeError("linalg.vander supports floating point, complex, and integer "
                           "tensors, but got Bool")
    N = (x.shape[-1] if x.ndim else 1) if N is None else N
    if N <= 1:
        raise RuntimeError("N must be greater than 1.")
    if x.ndim == 0:
        x = x.reshape(1)  # a 0-dim x is one point, as in torch
    powers = x.unsqueeze(-1).expand(*x.shape, N - 1).cumprod(-1)
    ones = _const(np.ones(tuple(x.shape) + (1,)), x)
    return cat([ones, powers], -1)


def diagonal(A: Tensor, *, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    """torch.diagonal with the matrix dimensions last by default."""
    return _diagonal(A, offset, dim1, dim2)
