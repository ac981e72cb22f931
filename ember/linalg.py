"""torch.linalg: norms, inverses, determinants, solves and decompositions on numpy.linalg.

Every function works on batches of matrices (the last two dimensions). Gradients are
implemented for the norms, inv, det, slogdet, solve, cholesky, svdvals and eigh;
qr, svd (with vectors), pinv raise NotImplementedError in backward rather than give a
wrong gradient. Products (matmul, multi_dot, cross) come from ember/ops/linalg.py,
matrix_exp from ember/ops/matrix_exp.py, householder_product from ember/ops/householder.py.
"""
from __future__ import annotations

import collections
import math

import numpy as np

from . import _dtype
from ._tensor import Tensor
from .autograd.function import Function
from .ops.householder import householder_product
from .ops.linalg import _cross, _in_float32, matmul, multi_dot
from .ops.matrix_exp import matrix_exp
from .ops.reduction import VectorNorm, _check_norm_input, reduce_dims
from .ops.shape import _named
from .amp.policy import FP32, LOWER, autocast_op

__all__ = ["LinAlgError", "norm", "vector_norm", "matrix_norm", "inv", "det", "slogdet",
           "solve", "cholesky", "qr", "svd", "svdvals", "eigh", "eigvalsh", "pinv",
           "matrix_rank", "matrix_power", "cross", "multi_dot", "matmul", "vecdot",
           "matrix_exp", "householder_product"]


class LinAlgError(RuntimeError):
    """A matrix was singular or not positive-definite (torch.linalg.LinAlgError)."""


SlogdetResult = collections.namedtuple("slogdet", ["sign", "logabsdet"])
QRResult = collections.namedtuple("qr", ["Q", "R"])
SVDResult = collections.namedtuple("svd", ["U", "S", "Vh"])
EighResult = collections.namedtuple("eigh", ["eigenvalues", "eigenvectors"])


_LOW = (np.dtype(np.float16), _dtype.bfloat16.numpy)


def _type_name(t: Tensor) -> str:
    return t.dtype._legacy_name[:-len("Tensor")]


def _check_float(t: Tensor, name: str) -> None:
    if not (t.is_floating_point() or t.is_complex()):
        raise RuntimeError(f"linalg.{name}: Expected a floating point or complex tensor as "
                           f"input. Got {_type_name(t)}")


def _check_square(t: Tensor, name: str) -> None:
    _check_float(t, name)
    if t.ndim < 2:
        raise RuntimeError(f"linalg.{name}: The input tensor A must have at least 2 "
                           "dimensions.")
    if t.shape[-1] != t.shape[-2]:
        raise RuntimeError(f"linalg.{name}: A must be batches of square matrices, but they "
                           f"are {t.shape[-2]} by {t.shape[-1]} matrices")


def _const(array: np.ndarray, like: Tensor) -> Tensor:
    """A gradient-free tensor in `like`'s dtype."""
    return Tensor._wrap(np.asarray(array, dtype=like._data.dtype))


def _matrices(t: Tensor) -> Tensor:
    return t.unsqueeze(-1).unsqueeze(-1)


# ---------------------------------------------------------------- norms
def vector_norm(x: Tensor, ord: float = 2, dim=None, keepdim: bool = False, *, dtype=None,
                out=None) -> Tensor:
    axes = reduce_dims(x, dim)
    _check_norm_input(x, ord, axes)
    return _out(VectorNorm.apply(x, float(ord), axes, keepdim, dtype), out)


def _out(result: Tensor, out) -> Tensor:
    if out is None:
        return result
    from .ops.pointwise import _with_out
    return _with_out(result, out)


def _pick(values: Tensor, largest: bool) -> Tensor:
    """The largest (or smallest) entry along the last dim, differentiably (a one-hot mask)."""
    data = values._data
    index = data.argmax(-1) if largest else data.argmin(-1)
    one_hot = np.zeros(data.shape, dtype=data.dtype)
    np.put_along_axis(one_hot, index[..., None], 1, axis=-1)
    return (values * _const(one_hot, values)).sum(-1)


def matrix_norm(A: Tensor, ord="fro", dim=(-2, -1), keepdim: bool = False, *, dtype=None,
                out=None) -> Tensor:
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
        result, name = _pick(values, ord > 0), "AmaxBackward0" if ord > 0 else "AminBackward0"
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
def _singular_error(name: str, message: str, data: np.ndarray) -> LinAlgError:
    """torch's error for a failed factorisation, naming the batch element for batches."""
    if data.ndim > 2:
        flat = data.reshape(-1, *data.shape[-2:])
        bad = next((i for i, m in enumerate(flat) if np.linalg.matrix_rank(m) < m.shape[-1]), 0)
        message = f"(Batch element {bad}): {message}"
    return LinAlgError(f"{name}: {message}")


class Inv(Function):
    backward_name = "LinalgInvExBackward0"
    saves_outputs = True

    @staticmethod
    def forward(ctx, A):
        try:
            return _in_float32(np.linalg.inv, A._data)
        except np.linalg.LinAlgError:
            raise _singular_error("linalg.inv", "The diagonal element is zero, the inversion "
                                  "could not be completed because the input matrix is "
                                  "singular.", A._data) from None

    @staticmethod
    def backward(ctx, grad):
        inverse = ctx.output(0).mT
        return -matmul(matmul(inverse, grad), inverse)


@autocast_op(FP32)
def inv(A: Tensor, *, out=None) -> Tensor:
    _check_square(A, "inv")
    return _out(Inv.apply(A), out)


class Det(Function):
    backward_name = "LinalgDetBackward0"
    saves_outputs = True

    @staticmethod
    def forward(ctx, A):
        ctx.save_for_backward(A)
        return _in_float32(np.linalg.det, A._data)

    @staticmethod
    def backward(ctx, grad):
        (A,), d = ctx.saved_tensors, ctx.output(0)
        if np.all(d._data != 0):
            # d det(A) / dA = det(A) * inv(A)^T, differentiable again through inv.
            return _matrices(grad * d) * inv(A).mT
        return _matrices(grad) * _const(_cofactors(A._data.astype(np.float64)), A)


def _cofactors(A: np.ndarray) -> np.ndarray:
    """Cofactor matrix (= d det / dA) through the SVD, valid for singular matrices too."""
    U, S, Vh = np.linalg.svd(A)
    n = S.shape[-1]
    others = np.stack([np.prod(np.delete(S, i, axis=-1), axis=-1) for i in range(n)], -1)
    sign = np.linalg.det(U) * np.linalg.det(Vh)
    return (sign[..., None, None] * U * others[..., None, :]) @ Vh


def det(A: Tensor, *, out=None) -> Tensor:
    _check_square(A, "det")
    return _out(Det.apply(A), out)


class Slogdet(Function):
    backward_name = "LinalgSlogdetBackward0"

    @staticmethod
    def forward(ctx, A):
        ctx.save_for_backward(A)
        # torch records the sign too (it is differentiable for complex input); for real
        # input its gradient is zero and backward ignores it.
        sign, logabsdet = _in_float32(lambda a: np.stack(np.linalg.slogdet(a)), A._data)
        return sign, logabsdet

    @staticmethod
    def backward(ctx, grad_sign, grad_logabsdet):
        (A,) = ctx.saved_tensors
        return _matrices(grad_logabsdet) * inv(A).mT


def slogdet(A: Tensor, *, out=None) -> SlogdetResult:
    _check_square(A, "slogdet")
    return SlogdetResult(*Slogdet.apply(A))


class Solve(Function):
    """X with A @ X = B; `vector` marks B as a (batch of) vector(s)."""

    backward_name = "LinalgSolveExBackward0"
    saves_outputs = True

    @staticmethod
    def forward(ctx, A, B, vector):
        ctx.save_for_backward(A)
        ctx.vector = vector
        b = B._data[..., None] if vector else B._data
        try:
            X = _in_float32(np.linalg.solve, A._data, b)
        except np.linalg.LinAlgError:
            raise LinAlgError("torch.linalg.solve: The solver failed because the input matrix "
                              "is singular.") from None
        return X[..., 0] if vector else X

    @staticmethod
    def backward(ctx, grad):
        (A,), X = ctx.saved_tensors, ctx.output(0)
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


# ---------------------------------------------------------------- decompositions
class Cholesky(Function):
    backward_name = "LinalgCholeskyExBackward0"
    saves_outputs = True

    @staticmethod
    def forward(ctx, A):
        try:
            return _in_float32(np.linalg.cholesky, A._data)
        except np.linalg.LinAlgError:
            raise _cholesky_error(A._data) from None

    @staticmethod
    def backward(ctx, grad):
        L = ctx.output(0)
        n = L.shape[-1]
        lower = _const(np.tril(np.ones((n, n))), L)
        strictly_lower = _const(np.tril(np.ones((n, n)), -1), L)
        # Lower triangle of L^T gL, mirrored into a symmetric matrix (diagonal kept once).
        phi = matmul(L.mT, grad) * lower
        phi = (phi + (phi * strictly_lower).mT) * 0.5
        L_inv = inv(L)
        return matmul(matmul(L_inv.mT, phi), L_inv)


def _cholesky_error(data: np.ndarray) -> LinAlgError:
    """Name the first leading minor that is not positive-definite, as torch does."""
    flat = data.reshape(-1, *data.shape[-2:])
    for batch, matrix in enumerate(flat):
        for order in range(1, matrix.shape[-1] + 1):
            try:
                np.linalg.cholesky(matrix[:order, :order])
            except np.linalg.LinAlgError:
                prefix = f"(Batch element {batch}): " if data.ndim > 2 else ""
                return LinAlgError(
                    f"linalg.cholesky: {prefix}The factorization could not be completed "
                    f"because the input is not positive-definite (the leading minor of "
                    f"order {order} is not positive-definite).")
    return LinAlgError("linalg.cholesky: The factorization could not be completed because "
                       "the input is not positive-definite.")


@autocast_op(FP32)
def cholesky(A: Tensor, *, upper: bool = False, out=None) -> Tensor:
    _check_square(A, "cholesky")
    L = Cholesky.apply(A)
    return _out(L.mT if upper else L, out)


class _NoBackward(Function):
    """A decomposition computed in NumPy whose gradient ember does not implement."""

    @staticmethod
    def forward(ctx, A, fn, name):
        ctx.op_name = name
        return _in_float32_tuple(fn, A._data)

    @staticmethod
    def backward(ctx, *grads):
        raise NotImplementedError(f"ember does not implement the gradient of {ctx.op_name}; "
                                  "compute it outside autograd or use a differentiable "
                                  "alternative.")


def _decompose(A: Tensor, fn, name: str, backward_name: str) -> tuple:
    outputs = _NoBackward.apply(A, fn, name)
    for t in outputs:
        _named(t, backward_name)
    return outputs


def _in_float32_tuple(fn, a: np.ndarray) -> tuple:
    """Run a NumPy decomposition, 16-bit floats computed in float32 and rounded back."""
    if a.dtype in _LOW:
        return tuple(np.asarray(r).astype(a.dtype) for r in fn(a.astype(np.float32)))
    return tuple(fn(a))


@autocast_op(FP32)
def qr(A: Tensor, mode: str = "reduced", *, out=None) -> QRResult:
    _check_float(A, "qr")
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError(f"qr received unrecognized mode '{mode}' but expected one of "
                           f"'reduced' (default), 'r', or 'complete'")
    if mode == "r":
        (R,) = _decompose(A, lambda a: (np.linalg.qr(a, mode="r"),), "linalg.qr",
                          "LinalgQrBackward0")
        return QRResult(Tensor._wrap(np.zeros(0, dtype=A._data.dtype)), R)
    return QRResult(*_decompose(A, lambda a: np.linalg.qr(a, mode=mode), "linalg.qr",
                                "LinalgQrBackward0"))


@autocast_op(FP32)
def svd(A: Tensor, full_matrices: bool = True, *, driver=None, out=None) -> SVDResult:
    _check_float(A, "svd")
    if driver is not None:
        raise NotImplementedError("linalg.svd: the 'driver' argument (CUDA only) is not "
                                  "supported by ember")
    return SVDResult(*_decompose(A, lambda a: np.linalg.svd(a, full_matrices=full_matrices),
                                 "linalg.svd", "LinalgSvdBackward0"))


class Svdvals(Function):
    backward_name = "LinalgSvdBackward0"

    @staticmethod
    def forward(ctx, A):
        U, S, Vh = _in_float32_tuple(lambda a: np.linalg.svd(a, full_matrices=False), A._data)
        ctx.vectors = (U, Vh)
        return S

    @staticmethod
    def backward(ctx, grad):
        # dA = U diag(dS) Vh (the singular vectors are held as constants).
        U, Vh = ctx.vectors
        return matmul(_const(U, grad) * grad.unsqueeze(-2), _const(Vh, grad))


@autocast_op(FP32)
def svdvals(A: Tensor, *, driver=None, out=None) -> Tensor:
    _check_float(A, "svdvals")
    return _out(Svdvals.apply(A), out)


class Eigh(Function):
    backward_name = "LinalgEighBackward0"

    @staticmethod
    def forward(ctx, A, UPLO):
        w, V = _in_float32_tuple(lambda a: np.linalg.eigh(a, UPLO=UPLO), A._data)
        ctx.result = (w, V)
        return w, V

    @staticmethod
    def backward(ctx, grad_w, grad_V):
        # A = V diag(w) V^T:  dA = V (diag(dw) + skew(V^T dV) / (w_j - w_i)) V^T
        w, V = ctx.result
        V = _const(V, grad_w)
        gaps = w[..., None, :] - w[..., :, None]
        inv_gaps = np.where(gaps == 0, 0.0, 1.0 / np.where(gaps == 0, 1.0, gaps))
        rotation = matmul(V.mT, grad_V)
        inner = (rotation - rotation.mT) * 0.5 * _const(inv_gaps, grad_w)
        n = w.shape[-1]
        inner = inner + grad_w.unsqueeze(-1) * _const(np.eye(n), grad_w)
        return matmul(matmul(V, inner), V.mT), None


@autocast_op(FP32)
def eigh(A: Tensor, UPLO: str = "L", *, out=None) -> EighResult:
    _check_square(A, "eigh")
    return EighResult(*Eigh.apply(A, UPLO))


@autocast_op(FP32)
def eigvalsh(A: Tensor, UPLO: str = "L", *, out=None) -> Tensor:
    return _out(_named(eigh(A, UPLO).eigenvalues, "LinalgEighBackward0"), out)


def pinv(A: Tensor, *, atol=None, rtol=None, hermitian: bool = False, out=None) -> Tensor:
    _check_float(A, "pinv")
    if atol is not None:
        raise NotImplementedError("linalg.pinv: the 'atol' argument is not supported by ember")
    kwargs = {} if rtol is None else {"rcond": rtol}
    (result,) = _decompose(A, lambda a: (np.linalg.pinv(a, hermitian=hermitian, **kwargs),),
                           "linalg.pinv", "LinalgPinvBackward0")
    return _out(result, out)


def matrix_rank(A: Tensor, *, atol=None, rtol=None, hermitian: bool = False,
                out=None) -> Tensor:
    """Number of singular values above max(atol, rtol * largest singular value)."""
    _check_float(A, "matrix_rank")
    data = A._data.astype(np.float32) if A._data.dtype in _LOW else A._data
    S = np.abs(np.linalg.eigvalsh(data)) if hermitian else \
        np.linalg.svd(data, compute_uv=False)
    if rtol is None:
        rtol = 0.0 if atol is not None and atol > 0 else \
            max(data.shape[-2:]) * np.finfo(S.dtype).eps
    largest = S.max(-1, initial=0)
    tolerance = np.maximum(0.0 if atol is None else atol, rtol * largest)
    rank = (S > tolerance[..., None]).sum(-1).astype(np.int64)
    return _out(Tensor._wrap(np.asarray(rank)), out)


def matrix_power(A: Tensor, n: int, *, out=None) -> Tensor:
    if A.ndim < 2 or A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"linalg.matrix_power: A must be batches of square matrices, but "
                           f"they are {A.shape[-2] if A.ndim > 1 else 1} by {A.shape[-1]} "
                           f"matrices")
    if n == 0:
        eye = np.broadcast_to(np.eye(A.shape[-1], dtype=A._data.dtype), A.shape).copy()
        return _out(Tensor._wrap(eye), out)
    base = inv(A) if n < 0 else A
    result = base
    for _ in range(abs(n) - 1):
        result = matmul(result, base)
    return _out(result, out)


def cross(input: Tensor, other: Tensor, *, dim: int = -1, out=None) -> Tensor:
    return _cross(input, other, dim, out)


@autocast_op(LOWER)
def vecdot(x: Tensor, y: Tensor, *, dim: int = -1, out=None) -> Tensor:
    if x.is_complex():
        raise NotImplementedError("linalg.vecdot of complex tensors is not supported by ember")
    return _out((x * y).sum(dim), out)
