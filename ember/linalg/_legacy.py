"""torch's older top-level linear-algebra names (torch.det, torch.inverse, torch.svd,
torch.qr, torch.norm ...), also bound as Tensor methods: thin forms over torch.linalg's
functions. The root package imports this module once torch.linalg is complete."""
from __future__ import annotations

import numpy as np

from ..amp.policy import FP32, autocast_op
from .._tensor import Tensor
from ..ops._return_types import return_types
from ..ops.pointwise import _with_out
from ..ops.reduction import VectorNorm, _check_norm_input, reduce_dims
from .. import linalg

__all__ = ["det", "inverse", "logdet", "slogdet", "cholesky", "svd", "pinverse",
           "matrix_power", "qr", "norm"]


def det(input: Tensor) -> Tensor:
    """Determinant of the square matrix (or batch) `input`; the same as linalg.det."""
    return linalg.det(input)


@autocast_op(FP32)
def inverse(input: Tensor, *, out=None) -> Tensor:
    """Inverse of the square matrix (or batch) `input`; the same as linalg.inv."""
    return linalg.inv(input, out=out)


def slogdet(input: Tensor) -> tuple:
    """Sign and log of the absolute determinant of `input`, as the named tuple (sign, logabsdet);
    the same as linalg.slogdet."""
    return return_types.slogdet(*linalg.slogdet(input))


def logdet(input: Tensor) -> Tensor:
    """log(det(A)): nan for a negative determinant, -inf for a singular matrix."""
    sign, logabsdet = linalg.slogdet(input)
    with np.errstate(invalid="ignore", divide="ignore"):
        return logabsdet + Tensor._wrap(np.log(sign._data.astype(logabsdet._data.dtype)))


@autocast_op(FP32)
def cholesky(input: Tensor, upper: bool = False, *, out=None) -> Tensor:
    """Cholesky factor of the positive-definite `input`, lower (or upper=True: upper) triangular;
    linalg.cholesky is preferred."""
    return linalg.cholesky(input, upper=upper, out=out)


@autocast_op(FP32)
def svd(input: Tensor, some: bool = True, compute_uv: bool = True, *, out=None) -> return_types.svd:
    """Older torch.svd: returns V (not Vh). Without compute_uv, U and V are zero matrices
    of full size (m x m, n x n)."""
    if compute_uv:
        U, S, Vh = linalg.svd(input, full_matrices=not some, out=out)
        return return_types.svd(U, S, Vh.mT)
    m, n = input.shape[-2:]
    batch, dtype = tuple(input.shape[:-2]), input._data.dtype
    return return_types.svd(Tensor._wrap(np.zeros(batch + (m, m), dtype=dtype)),
                            linalg.svdvals(input, out=out),
                            Tensor._wrap(np.zeros(batch + (n, n), dtype=dtype)))


def pinverse(input: Tensor, rcond: float = 1e-15) -> Tensor:
    """Pseudo-inverse of `input`: linalg.pinv with singular values below rcond * (largest singular
    value) treated as zero."""
    return linalg.pinv(input, rtol=rcond)


def matrix_power(input: Tensor, n: int, *, out=None) -> Tensor:
    """`input` raised to the integer power `n` by matrix products; the same as linalg.matrix_power.
    """
    return linalg.matrix_power(input, n, out=out)


@autocast_op(FP32)
def qr(input: Tensor, some: bool = True, *, out=None) -> return_types.qr:
    """Older torch.qr: some=True is linalg.qr's 'reduced' mode, some=False 'complete'."""
    return return_types.qr(*linalg.qr(input, "reduced" if some else "complete", out=out))


def norm(input: Tensor, p="fro", dim=None, keepdim: bool = False, out=None,
         dtype=None) -> Tensor:
    """The vector p-norm over `dim` (all entries when None). p: a number, inf, -inf, 'fro'
    (the 2-norm over all entries or over one or two dims) or 'nuc' (torch.linalg.matrix_norm)."""
    if isinstance(p, str):
        if p != "fro" or isinstance(dim, (tuple, list)) and len(dim) > 2:
            dims = (-2, -1) if dim is None else dim
            return _with_out(linalg.matrix_norm(input, p, dims, keepdim, dtype=dtype), out)
        p = 2
    axes = reduce_dims(input, dim)
    _check_norm_input(input, p, axes)
    return _with_out(VectorNorm.apply(input, float(p), axes, keepdim, dtype), out)


for _name in __all__:
    setattr(Tensor, _name, globals()[_name])


# Removed in torch 1.9 -> 2.0; code that still calls them gets torch's error and the name
# of the function that replaced each.
_REMOVED = {
    "solve": "torch.linalg.solve(A, B) (its arguments are reversed: solve(B, A) was "
             "A^-1 B; it returns no LU factorization)",
    "symeig": "torch.linalg.eigh(A, UPLO='U' if upper else 'L') or torch.linalg.eigvalsh "
              "(the lower triangle is now the default)",
    "eig": "torch.linalg.eig(A) or torch.linalg.eigvals(A) (complex results instead of "
           "real pairs)",
    "lstsq": "torch.linalg.lstsq(A, B) (its arguments are reversed; it returns no QR "
             "factorization)",
    "matrix_rank": "torch.linalg.matrix_rank (its 'symmetric' argument is now 'hermitian')",
}


def _removed(name: str):
    def removed(*args, **kwargs):
        raise RuntimeError(f"This function was deprecated since version 1.9 and is now removed. "
                           f"Use {_REMOVED[name]}.")
    removed.__name__ = removed.__qualname__ = name
    removed.__doc__ = f"Removed from torch; raises, naming {_REMOVED[name].split(' ')[0]}."
    return removed


solve, symeig, eig, lstsq, matrix_rank = map(_removed, _REMOVED)
__all__ += list(_REMOVED)
for _name in ("solve", "symeig", "eig", "lstsq"):
    setattr(Tensor, _name, globals()[_name])
