"""MaskedTensor: a tensor with a mask of its specified elements (see core.py)."""
from .core import MaskedTensor, is_masked_tensor
from .creation import as_masked_tensor, masked_tensor
from . import binary, passthrough, reductions, unary  # noqa: F401  (bind MaskedTensor's ops)

__all__ = ["MaskedTensor", "as_masked_tensor", "is_masked_tensor", "masked_tensor"]
