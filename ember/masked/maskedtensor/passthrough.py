"""Shape and indexing ops of a MaskedTensor (mt[0], mt.transpose(0, 1), mt.view(6) ...): the
same op on the data and on the mask."""
from __future__ import annotations

from ..._tensor import Tensor
from .core import MaskedTensor

__all__ = []

# The shape ops torch passes through to data and mask, as Tensor methods.
PASSTHROUGH_NAMES = ["__getitem__", "select", "transpose", "t", "view", "reshape", "expand",
                     "unsqueeze", "unfold", "contiguous"]


def _passthrough(name: str):
    op = getattr(Tensor, name)

    def method(self, *args, **kwargs) -> MaskedTensor:
        return MaskedTensor._make(op(self._masked_data, *args, **kwargs),
                                  op(self._masked_mask, *args, **kwargs))

    method.__name__ = name
    method.__doc__ = f"Tensor.{name} of the data and of the mask."
    return method


for _name in PASSTHROUGH_NAMES:
    setattr(MaskedTensor, _name, _passthrough(_name))
