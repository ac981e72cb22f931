"""The two MaskedTensor factories: masked_tensor (a new leaf, as torch.tensor) and
as_masked_tensor (keeps the data's autograd history, as torch.as_tensor)."""
from __future__ import annotations

from .core import MaskedTensor

__all__ = ["masked_tensor", "as_masked_tensor"]


def masked_tensor(data, mask, requires_grad: bool = False) -> MaskedTensor:
    """A MaskedTensor of copies of `data` and `mask`: a leaf, which records operations for
    autograd when `requires_grad`."""
    return MaskedTensor(data, mask, requires_grad)


def as_masked_tensor(data, mask) -> MaskedTensor:
    """A MaskedTensor of `data` and `mask` through which gradients flow back to `data`."""
    return MaskedTensor._from_values(data, mask)
