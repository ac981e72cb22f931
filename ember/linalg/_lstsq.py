"""torch.linalg.lstsq: least-squares solutions of A X = B.

The solution is pinv(A) @ B, the minimum-norm least-squares solution that every driver
torch offers on the CPU computes (singular values below rcond * the largest count as
zero); its gradient is pinv's, as in torch. What else is returned follows
torch's rules for the chosen driver (default 'gelsy'):

    driver   residuals        rank      singular_values
    gelsy    empty            computed  empty
    gelsd    computed (*)     computed  computed
    gelss    computed (*)     computed  computed
    gels     computed (*)     empty     empty

(*) only when A is tall (m > n) and every matrix is full rank; empty otherwise.
"""
from __future__ import annotations


import numpy as np

from ..ops._return_types import return_types
from .._recorded_call import replayed_call
from .._tensor import Tensor
from ..ops.linalg import matmul
from ..ops.shape import _named


_DRIVERS = ("gels", "gelsy", "gelsd", "gelss")


def _check_args(A: Tensor, B: Tensor, driver) -> None:
    if A.ndim < 2:
        raise RuntimeError("torch.linalg.lstsq: input must have at least 2 dimensions.")
    if A._data.dtype != B._data.dtype:
        raise RuntimeError(f"torch.linalg.lstsq: Expected input and other to have the same "
                           f"dtype, but got input's dtype {A.dtype.scalar_name} and "
                           f"other's dtype {B.dtype.scalar_name}")
    if A._data.dtype not in (np.float32, np.float64):
        raise RuntimeError("This function doesn't handle types other than float and double")
    if driver is not None and driver not in _DRIVERS:
        raise RuntimeError("torch.linalg.lstsq: parameter `driver` should be one of (gels, "
                           "gelsy, gelsd, gelss)")


def lstsq(A: Tensor, B: Tensor, rcond: float | None = None, *, driver: str | None = None
          ) -> return_types.linalg_lstsq:
    """Least-squares solution X of A X = B (B a matrix, or a vector when B.ndim < A.ndim)."""
    _check_args(A, B, driver)
    driver = driver or "gelsy"
    vector = B.ndim == A.ndim - 1
    matrix_B = B.unsqueeze(-1) if vector else B
    if A.shape[-2] != matrix_B.shape[-2]:
        raise RuntimeError("torch.linalg.lstsq: input.size(-2) should match other.size(-2)")
    m, n = A.shape[-2:]
    dtype = A._data.dtype
    if rcond is None:
        rcond = float(np.finfo(dtype).eps * max(m, n))
    from . import pinv     # the package's, complete by the time lstsq runs
    solution = _named(matmul(pinv(A, rtol=rcond), matrix_B), "LinalgLstsqBackward0")
    singular_values, ranks = _singular_values_and_ranks(A.detach(), rcond)
    empty = Tensor._wrap(np.zeros(0, dtype=dtype))
    # a branch on values: a compiled call breaks its graph here
    if driver != "gelsy" and m > n and bool((ranks == n).all()):
        residuals = (matmul(A, solution) - matrix_B).pow(2).sum(-2)
    else:
        residuals = solution.reshape(-1)[:0]    # empty, but part of the graph as in torch
    with_svd = driver in ("gelsd", "gelss")
    rank = ranks if driver != "gels" else Tensor._wrap(np.zeros(0, dtype=np.int64))
    return return_types.linalg_lstsq(solution.squeeze(-1) if vector else solution,
                                     _named(residuals, "LinalgLstsqBackward0"), rank,
                                     singular_values if with_svd else empty)


@replayed_call
def _singular_values_and_ranks(A: Tensor, rcond: float) -> tuple:
    """A's singular values, and how many of them exceed rcond times the largest (int64)."""
    values = np.linalg.svd(A._data, compute_uv=False)
    ranks = (values > rcond * values.max(-1, initial=0)[..., None]).sum(-1)
    return Tensor._wrap(values), Tensor._wrap(np.asarray(ranks, dtype=np.int64))
