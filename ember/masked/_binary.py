"""torch.masked.logaddexp: log(exp(input) + exp(other)) with a mask for each operand."""
from __future__ import annotations

from .._tensor import Tensor
from ..ops.pointwise import logaddexp as plain_logaddexp
from ._mask import combine_input_and_mask

__all__ = ["logaddexp"]


def logaddexp(input: Tensor, other: Tensor, *, dtype=None, input_mask=None,
              other_mask=None) -> Tensor:
    """log(exp(input) + exp(other)) elementwise, a masked-out element counting as -inf (so
    that the other operand's element comes through; -inf where both are masked out)."""
    dtype = input.dtype if dtype is None else dtype
    return plain_logaddexp(combine_input_and_mask("logaddexp", input, input_mask),
                           combine_input_and_mask("logaddexp", other, other_mask)).to(dtype=dtype)
