"""torch.matrix_exp (also torch.linalg.matrix_exp): the exponential of square matrices.

Forward: scaling and squaring with the [13/13] Padé approximant (Higham, "The scaling
and squaring method for the matrix exponential revisited", 2005): exp(A) =
r(A / 2^s)^(2^s), with s the smallest power that brings the 1-norm below theta_13,
where r is accurate to double precision. Computed in float64 (complex128) and rounded
to the input's dtype, per matrix of a batch.

Backward: for a matrix function f, the gradient G maps to the upper-right block of
f([[A^H, G], [0, A^H]]) (Mathias, 1996), so the backward is again a matrix exponential
of ember tensors and can itself be differentiated.
"""
from __future__ import annotations

import numpy as np

from .._tensor import Tensor
from ..autograd.function import Function
from .creation import zeros_like
from .joining import cat

METHODS = ["matrix_exp"]

__all__ = ["matrix_exp"]

# Numerator coefficients of the [13/13] Padé approximant of exp (the denominator's are
# the same with alternating signs), and the largest 1-norm it handles unscaled.
_PADE_13 = (64764752532480000., 32382376266240000., 7771770303897600., 1187353796428800.,
            129060195264000., 10559470521600., 670442572800., 33522128640., 1323241920.,
            40840800., 960960., 16380., 182., 1.)
_THETA_13 = 5.371920351148152


def _expm(a: np.ndarray) -> np.ndarray:
    """exp of a batch (..., n, n) of float64 or complex128 matrices."""
    n = a.shape[-1]
    norms = np.abs(a).sum(axis=-2).max(axis=-1, initial=0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        squarings = np.ceil(np.log2(norms / _THETA_13))
    # no scaling for small norms, nor for inf/nan entries (the result is nan either way)
    squarings = np.where(np.isfinite(squarings) & (squarings > 0), squarings, 0).astype(int)
    a = a / (2.0 ** squarings)[..., None, None]
    b = _PADE_13
    eye = np.eye(n, dtype=a.dtype)
    a2 = a @ a
    a4 = a2 @ a2
    a6 = a4 @ a2
    # Split into odd (u) and even (v) parts: r = (v - u)^-1 (v + u).
    u = a @ (a6 @ (b[13] * a6 + b[11] * a4 + b[9] * a2)
             + b[7] * a6 + b[5] * a4 + b[3] * a2 + b[1] * eye)
    v = (a6 @ (b[12] * a6 + b[10] * a4 + b[8] * a2)
         + b[6] * a6 + b[4] * a4 + b[2] * a2 + b[0] * eye)
    result = np.linalg.solve(v - u, v + u)
    for k in range(int(squarings.max(initial=0))):
        # matrices of a batch need different numbers of squarings
        result = np.where((squarings > k)[..., None, None], result @ result, result)
    return result


class MatrixExp(Function):
    backward_name = "LinalgMatrixExpBackward0"

    @staticmethod
    def forward(ctx, A):
        ctx.save_for_backward(A)
        wide = np.complex128 if np.iscomplexobj(A) else np.float64
        with np.errstate(all="ignore"):      # inf or nan entries give nan, as in torch
            return _expm(A.astype(wide)).astype(A.dtype)

    @staticmethod
    def backward(ctx, grad):
        (A,) = ctx._unpacked_saved
        n = A.shape[-1]
        adjoint = A.mH
        block = cat([cat([adjoint, grad], -1), cat([zeros_like(adjoint), adjoint], -1)], -2)
        return MatrixExp.apply(block)[..., :n, n:]


def matrix_exp(input: Tensor) -> Tensor:
    """Matrix exponential of the square matrix (or batch) `input`: the sum of A^k / k! over k >= 0.
    """
    if input.ndim < 2:
        raise RuntimeError("linalg.matrix_exp: The input tensor A must have at least 2 "
                           "dimensions.")
    if not (input.is_floating_point() or input.is_complex()):
        raise RuntimeError("linalg.matrix_exp: Expected a floating point or complex tensor "
                           f"as input. Got {input.dtype.scalar_name}")
    if input.shape[-1] != input.shape[-2]:
        raise RuntimeError("linalg.matrix_exp: A must be batches of square matrices, but "
                           f"they are {input.shape[-2]} by {input.shape[-1]} matrices")
    return MatrixExp.apply(input)
