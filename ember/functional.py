"""torch.functional: the module in which torch writes some of its top-level functions
(einsum, meshgrid, split, stft, unique ...). Scripts reach them as torch.functional.X;
these are ember's top-level functions of the same names. (pca_lowrank and svd_lowrank,
also listed by torch, are not in ember.)"""
from . import (atleast_1d, atleast_2d, atleast_3d, block_diag, broadcast_shapes,
               broadcast_tensors, cartesian_prod, cdist, chain_matmul, einsum, istft, lu,
               meshgrid, norm, split, stft, tensordot, unique, unique_consecutive,
               unravel_index)

__all__ = ["atleast_1d", "atleast_2d", "atleast_3d", "broadcast_shapes", "broadcast_tensors",
           "cartesian_prod", "block_diag", "cdist", "chain_matmul", "einsum", "istft", "lu",
           "norm", "meshgrid", "split", "stft", "tensordot", "unique", "unique_consecutive",
           "unravel_index"]
