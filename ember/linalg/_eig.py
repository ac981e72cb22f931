"""torch.linalg.eig and eigvals: eigen-decomposition of general (non-symmetric) matrices.

The results are complex even for real input, as in torch (complex64 for float32,
complex128 for float64). The gradient follows torch's convention for complex outputs
(the conjugate Wirtinger derivative), and is real for real input.
"""
from __future__ import annotations


import numpy as np

from ..ops._return_types import return_types
from .._tensor import Tensor
from ..autograd.function import Function
from ..ops.creation import zeros_like
from ..ops.linalg import matmul
from ..ops.pointwise import scalar_type_name
from ..ops.shape import diag_embed
from ..ops.shape import _named
from ._checks import _check_square, _type_name


_COMPLEX_OF = {np.dtype(np.float32): np.complex64, np.dtype(np.float64): np.complex128,
               np.dtype(np.complex64): np.complex64, np.dtype(np.complex128): np.complex128}


class Eig(Function):
    backward_name = "LinalgEigBackward0"
    saves_outputs = True

    @staticmethod
    def forward(ctx, A):
        values, vectors = np.linalg.eig(A)
        complex_dtype = _COMPLEX_OF[A.dtype]
        ctx.real_input = A.dtype.kind == "f"
        return values.astype(complex_dtype), vectors.astype(complex_dtype)

    @staticmethod
    def backward(ctx, grad_values, grad_vectors):
        # A = V diag(L) V^-1. With E[i, j] = conj(L[j] - L[i]) (1 on the diagonal):
        #   gA = V^-H (diag(gL) + offdiag((V^H gV - V^H V diag(re(diag(V^H gV)))) / E)) V^H
        # The subtracted term removes the part of gV that only rescales the unit-norm
        # columns of V; the imaginary part of diag(V^H gV) must vanish (see below).
        L, V = ctx.output(0), ctx.output(1)
        Vh = V.mH
        n = L.shape[-1]
        eye = Tensor._wrap(np.eye(n, dtype=L._data.dtype))
        inner = zeros_like(V)
        if grad_vectors is not None:
            VhgV = matmul(Vh, grad_vectors)
            diag = VhgV.diagonal(0, -2, -1)
            if not np.allclose(diag._data.imag, 0, rtol=1e-2, atol=1e-2):
                raise RuntimeError("linalg_eig_backward: The eigenvectors in the complex case "
                                   "are specified up to multiplication by e^{i phi}. The "
                                   "specified loss function depends on this quantity, so it "
                                   "is ill-defined.")
            inner = VhgV - matmul(Vh, V * diag.real.unsqueeze(-2))
            gaps = (L.unsqueeze(-2) - L.unsqueeze(-1)).conj() + eye
            inner = inner / gaps * (1 - eye)
        if grad_values is not None:
            inner = inner + diag_embed(grad_values)
        from . import solve     # the package's, complete by the time backward runs
        grad = solve(Vh, matmul(inner, Vh))
        return grad.real if ctx.real_input else grad


def _check_input(A: Tensor, name: str) -> None:
    if A._data.dtype.kind in "biu":
        raise RuntimeError(f"Unknown Complex ScalarType for {_type_name(A)}")
    if A._data.dtype not in _COMPLEX_OF:
        raise NotImplementedError(f'"linalg_eig_out_cpu" not implemented for '
                                  f"'{scalar_type_name(A.dtype)}'")
    _check_square(A, name)


def eig(A: Tensor, *, out=None) -> return_types.linalg_eig:
    """Eigenvalues and unit-norm eigenvectors (columns) of square matrices, as complex."""
    _check_input(A, "eig")
    if out is not None:
        raise NotImplementedError("linalg.eig: the 'out' argument is not supported by ember")
    return return_types.linalg_eig(*Eig.apply(A))


def eigvals(A: Tensor, *, out=None) -> Tensor:
    """Eigenvalues of square matrices, as complex numbers."""
    _check_input(A, "eigvals")
    if out is not None:
        raise NotImplementedError("linalg.eigvals: the 'out' argument is not supported by "
                                  "ember")
    return _named(Eig.apply(A)[0], "LinalgEigBackward0")
