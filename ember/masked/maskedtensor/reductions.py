"""Reductions of a MaskedTensor (mt.sum(), mt.amax(1, keepdim=True) ...): the masked
reduction of torch.masked over the data, masked out where every element of the reduced
slice was."""
from __future__ import annotations

from .. import _reductions
from .._mask import canonical_dim
from .core import MaskedTensor

__all__ = []

# The reductions torch defines on MaskedTensors, less `all` and `norm`. Their arguments
# are (dim, keepdim, dtype), as in torch: mt.var(0, True) keeps the dim.
REDUCE_NAMES = ["sum", "mean", "amin", "amax", "argmin", "argmax", "prod", "var", "std"]


def _any(mask, dims: tuple, keepdim: bool):
    """Whether any element of each reduced slice is specified."""
    for d in reversed(dims):
        mask = mask.any(dim=d, keepdim=keepdim)
    return mask


def _reduction(name: str):
    masked_op = getattr(_reductions, name)

    def method(self, dim=None, keepdim: bool = False, dtype=None) -> MaskedTensor:
        mask = self._masked_mask
        result = masked_op(self, dim, keepdim=keepdim, dtype=dtype, mask=mask)
        return MaskedTensor._make(result, _any(mask, canonical_dim(dim, mask.ndim), keepdim))

    method.__name__ = name
    method.__doc__ = (f"torch.masked.{name} of the data over `dim` (all dims by default), "
                      "as a MaskedTensor masked out where the reduced slice was.")
    return method


for _name in REDUCE_NAMES:
    setattr(MaskedTensor, _name, _reduction(_name))
