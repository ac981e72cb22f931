"""torch.linalg.eig and eigvals: eigen-decomposition of general (non-symmetric) matrices.

The results are complex even for real input, as in torch (complex64 for float32,
complex128 for float64). ember's autograd has no complex (Wirtinger) calculus yet, so
their backward raises NotImplementedError instead of returning a wrong gradient.
"""
from __future__ import annotations


import numpy as np

from ..ops._return_types import return_types
from .._tensor import Tensor
from ..autograd.function import Function
from ..ops.pointwise import scalar_type_name
from ..ops.shape import _named
from ._checks import _check_square, _type_name


_COMPLEX_OF = {np.dtype(np.float32): np.complex64, np.dtype(np.float64): np.complex128,
               np.dtype(np.complex64): np.complex64, np.dtype(np.complex128): np.complex128}


class Eig(Function):
    backward_name = "LinalgEigBackward0"

    @staticmethod
    def forward(ctx, A):
        values, vectors = np.linalg.eig(A)
        complex_dtype = _COMPLEX_OF[A.dtype]
        return values.astype(complex_dtype), vectors.astype(complex_dtype)

    @staticmethod
    def backward(ctx, grad_values, grad_vectors):
        raise NotImplementedError("ember does not implement the gradient of linalg.eig or "
                                  "linalg.eigvals (its outputs are complex); for symmetric "
                                  "matrices use linalg.eigh, which is differentiable.")


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
