"""torch.nn.attention.bias: causal attention masks as tensors for scaled_dot_product_attention.

A CausalBias here is a bool Tensor holding its mask (True where a query may see a key), so
scaled_dot_product_attention uses it as any bool attn_mask; upper-left alignment equals
is_causal=True. torch's CausalBias stores no mask and dispatches sdpa itself; its printed
form (the materialized mask) and the attention it gives are the same.
"""
from __future__ import annotations

import warnings
from enum import IntEnum, auto

from ..._dtype import bool as bool_
from ..._tensor import Tensor
from ...ops.creation import ones
from ...ops.shape import tril

__all__ = ["causal_upper_left", "causal_lower_right", "CausalVariant", "CausalBias"]


class CausalVariant(IntEnum):
    """UPPER_LEFT: query i sees keys 0..i (is_causal=True). LOWER_RIGHT: the last query
    sees every key, the mask's diagonal ending in the lower right corner."""
    UPPER_LEFT = auto()
    LOWER_RIGHT = auto()


def _mask(variant: CausalVariant, seq_len_q: int, seq_len_kv: int) -> Tensor:
    offset = 0 if variant == CausalVariant.UPPER_LEFT else seq_len_kv - seq_len_q
    return tril(ones(seq_len_q, seq_len_kv, dtype=bool_), diagonal=offset)


class CausalBias(Tensor):
    """A (seq_len_q, seq_len_kv) causal mask of the given variant, for sdpa's attn_mask."""

    def __new__(cls, variant: CausalVariant, seq_len_q: int, seq_len_kv: int):
        if not isinstance(variant, CausalVariant):
            raise AssertionError(f"variant must be a CausalVariant, got {type(variant).__name__}")
        return Tensor._make_subclass(cls, _mask(variant, seq_len_q, seq_len_kv))

    def __init__(self, variant: CausalVariant, seq_len_q: int, seq_len_kv: int) -> None:
        self.variant = variant
        self.seq_len_q = seq_len_q
        self.seq_len_kv = seq_len_kv
        if seq_len_q > seq_len_kv and variant == CausalVariant.LOWER_RIGHT:
            warnings.warn("Lower right causal bias will produce NaNs in the output when "
                          "seq_len_q > seq_len_kv!", stacklevel=2)

    def _materialize(self, device=None) -> Tensor:
        """The mask as a plain bool Tensor."""
        return _mask(self.variant, self.seq_len_q, self.seq_len_kv)

    def __repr__(self) -> str:
        return repr(self._materialize())


def _two_sizes(name: str, size: tuple) -> tuple:
    if len(size) != 2:
        raise AssertionError(f"{name} only supports 2D tensors")
    return size


def causal_upper_left(*size) -> CausalBias:
    """The upper-left causal bias of size (seq_len_q, seq_len_kv): is_causal=True's mask."""
    return CausalBias(CausalVariant.UPPER_LEFT, *_two_sizes("causal_upper_left", size))


def causal_lower_right(*size) -> CausalBias:
    """The lower-right causal bias of size (seq_len_q, seq_len_kv)."""
    return CausalBias(CausalVariant.LOWER_RIGHT, *_two_sizes("causal_lower_right", size))
