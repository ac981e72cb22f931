"""Attention: scaled_dot_product_attention and multi_head_attention_forward (the math
behind nn.MultiheadAttention), plus torch's mask canonicalisation helpers."""
from __future__ import annotations

import math
import warnings

import numpy as np

from ...ops.linalg import bmm, baddbmm
from ...ops.joining import cat
from ...ops.creation import zeros, zeros_like
from ..._dtype import bool as bool_
from ..._tensor import Tensor
from .activation import softmax
from .dropout import dropout
from .linear import linear
from .padding import pad

__all__ = ["scaled_dot_product_attention", "multi_head_attention_forward"]


def _none_or_dtype(input):
    if input is None:
        return None
    if isinstance(input, Tensor):
        return input.dtype
    raise RuntimeError("input to _none_or_dtype() must be None or torch.Tensor")


def _canonical_mask(mask, mask_name: str, other_type, other_name: str, target_type,
                    check_other: bool = True):
    """A bool mask (True = masked out) becomes an additive float mask of 0 / -inf."""
    if mask is None:
        return None
    if mask.dtype != bool_ and not mask.is_floating_point():
        raise AssertionError(f"only bool and floating types of {mask_name} are supported")
    if check_other and other_type is not None and mask.dtype != other_type:
        warnings.warn(f"Support for mismatched {mask_name} and {other_name} is deprecated. Use "
                      "same type for both instead.", stacklevel=3)
    if mask.dtype == bool_:
        return zeros_like(mask, dtype=target_type).masked_fill_(mask, float("-inf"))
    return mask


def scaled_dot_product_attention(query: Tensor, key: Tensor, value: Tensor, attn_mask=None,
                                 dropout_p: float = 0.0, is_causal: bool = False, scale=None,
                                 enable_gqa: bool = False) -> Tensor:
    """softmax(q k^T * scale + mask) v over (..., L, E) queries and (..., S, E) keys.

    A bool attn_mask keeps positions where it is True; a float mask is added to the
    scores; is_causal (without attn_mask) hides keys after each query. Like torch's CPU
    kernel, a query that can see no key at all gets a zero output (not NaN).
    """
    from ..attention import check_sdpa_backend    # torch.nn.attention builds on this module
    check_sdpa_backend(query, key, value, dropout_p)
    if is_causal and attn_mask is not None:
        raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be set "
                           "when is_causal=True")
    length, source = query.shape[-2], key.shape[-2]
    scale = 1.0 / math.sqrt(query.shape[-1]) if scale is None else scale
    if enable_gqa and query.dim() >= 3:
        repeats = query.shape[-3] // key.shape[-3]
        key = key.repeat_interleave(repeats, -3)
        value = value.repeat_interleave(repeats, -3)
    scores = query @ key.transpose(-2, -1) * scale
    blocked = None      # NumPy bool array of hidden (query, key) pairs, broadcastable
    if is_causal:
        blocked = ~np.tril(np.ones((length, source), dtype=bool))
    elif attn_mask is not None:
        if attn_mask.dtype == bool_:
            blocked = ~attn_mask._data
        else:
            scores = scores + attn_mask
    if blocked is not None:
        scores = scores.masked_fill(Tensor._wrap(blocked), float("-inf"))
    weights = softmax(scores, dim=-1)
    dead = np.isneginf(scores._data).all(axis=-1, keepdims=True)
    if dead.any():
        weights = weights.masked_fill(Tensor._wrap(dead), 0.0)
    if dropout_p > 0.0:
        weights = dropout(weights, dropout_p, training=True)
    return weights @ value


# ---------------------------------------------------------------- multi-head attention
def _in_projection(q, k, v, in_proj_weight, in_proj_bias, separate):
    """The q/k/v projections: slices of the packed (3E, E) weight, or three own weights."""
    if separate is None:
        w_q, w_k, w_v = in_proj_weight.chunk(3)
    else:
        w_q, w_k, w_v = separate
    b_q = b_k = b_v = None
    if in_proj_bias is not None:
        b_q, b_k, b_v = in_proj_bias.chunk(3)
    return linear(q, w_q, b_q), linear(k, w_k, b_k), linear(v, w_v, b_v)


def _check_attn_mask(attn_mask, tgt_len, src_len, heads_times_batch):
    if attn_mask.dim() == 2:
        if tuple(attn_mask.shape) != (tgt_len, src_len):
            raise RuntimeError(f"The shape of the 2D attn_mask is {attn_mask.shape}, but should "
                               f"be {(tgt_len, src_len)}.")
        return attn_mask.unsqueeze(0)
    if attn_mask.dim() == 3:
        if tuple(attn_mask.shape) != (heads_times_batch, tgt_len, src_len):
            raise RuntimeError(f"The shape of the 3D attn_mask is {attn_mask.shape}, but should "
                               f"be {(heads_times_batch, tgt_len, src_len)}.")
        return attn_mask
    raise RuntimeError(f"attn_mask's dimension {attn_mask.dim()} is not supported")


def _pad_last(mask):
    return None if mask is None else pad(mask, (0, 1))


def multi_head_attention_forward(query: Tensor, key: Tensor, value: Tensor,
                                 embed_dim_to_check: int, num_heads: int, in_proj_weight,
                                 in_proj_bias, bias_k, bias_v, add_zero_attn: bool,
                                 dropout_p: float, out_proj_weight: Tensor, out_proj_bias,
                                 training: bool = True, key_padding_mask=None,
                                 need_weights: bool = True, attn_mask=None,
                                 use_separate_proj_weight: bool = False, q_proj_weight=None,
                                 k_proj_weight=None, v_proj_weight=None, static_k=None,
                                 static_v=None, average_attn_weights: bool = True,
                                 is_causal: bool = False):
    """Attention over (L, N, E) queries and (S, N, E) keys/values (or unbatched (L, E))."""
    batched = query.dim() == 3
    if not batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    tgt_len, bsz, embed_dim = query.shape
    src_len = key.shape[0]
    if embed_dim != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but "
                             f"got {embed_dim}")
    head_dim = embed_dim // num_heads
    if head_dim * num_heads != embed_dim:
        raise AssertionError(f"embed_dim {embed_dim} not divisible by num_heads {num_heads}")
    key_padding_mask = _canonical_mask(key_padding_mask, "key_padding_mask",
                                       _none_or_dtype(attn_mask), "attn_mask", query.dtype)
    if is_causal and attn_mask is None:
        raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the "
                           "Transformer module method `generate_square_subsequent_mask` to "
                           "create this mask.")
    if is_causal and key_padding_mask is None and not need_weights:
        attn_mask = None    # the is_causal flag alone carries the mask into attention
    else:
        attn_mask = _canonical_mask(attn_mask, "attn_mask", None, "", query.dtype,
                                    check_other=False)
        if key_padding_mask is not None:
            is_causal = False

    separate = (q_proj_weight, k_proj_weight, v_proj_weight) if use_separate_proj_weight \
        else None
    q, k, v = _in_projection(query, key, value, in_proj_weight, in_proj_bias, separate)
    if attn_mask is not None:
        attn_mask = _check_attn_mask(attn_mask, tgt_len, src_len, bsz * num_heads)
    if bias_k is not None and bias_v is not None:
        k = cat([k, bias_k.repeat(1, bsz, 1)])
        v = cat([v, bias_v.repeat(1, bsz, 1)])
        attn_mask, key_padding_mask = _pad_last(attn_mask), _pad_last(key_padding_mask)

    # Heads become part of the batch: (N * heads, L, head_dim).
    q = q.reshape(tgt_len, bsz * num_heads, head_dim).transpose(0, 1)
    k = static_k if static_k is not None else \
        k.reshape(k.shape[0], bsz * num_heads, head_dim).transpose(0, 1)
    v = static_v if static_v is not None else \
        v.reshape(v.shape[0], bsz * num_heads, head_dim).transpose(0, 1)
    if add_zero_attn:
        zero = zeros((bsz * num_heads, 1, head_dim), dtype=k.dtype)
        k, v = cat([k, zero], dim=1), cat([v, zero], dim=1)
        attn_mask, key_padding_mask = _pad_last(attn_mask), _pad_last(key_padding_mask)
    src_len = k.shape[1]
    if key_padding_mask is not None:
        if tuple(key_padding_mask.shape) != (bsz, src_len):
            raise AssertionError(f"expecting key_padding_mask shape of {(bsz, src_len)}, but "
                                 f"got {key_padding_mask.shape}")
        per_head = key_padding_mask.reshape(bsz, 1, 1, src_len).expand(
            -1, num_heads, -1, -1).reshape(bsz * num_heads, 1, src_len)
        attn_mask = per_head if attn_mask is None else attn_mask + per_head
    if not training:
        dropout_p = 0.0

    if need_weights:
        scores_q = q * math.sqrt(1.0 / head_dim)
        if attn_mask is not None:
            scores = baddbmm(attn_mask, scores_q, k.transpose(-2, -1))
        else:
            scores = bmm(scores_q, k.transpose(-2, -1))
        weights = softmax(scores, dim=-1)
        if dropout_p > 0.0:
            weights = dropout(weights, p=dropout_p)
        out = bmm(weights, v)
        out = out.transpose(0, 1).reshape(tgt_len * bsz, embed_dim)
        out = linear(out, out_proj_weight, out_proj_bias).reshape(tgt_len, bsz, embed_dim)
        weights = weights.reshape(bsz, num_heads, tgt_len, src_len)
        if average_attn_weights:
            weights = weights.mean(dim=1)
        if not batched:
            out, weights = out.squeeze(1), weights.squeeze(0)
        return out, weights

    if attn_mask is not None:
        attn_mask = attn_mask.unsqueeze(0) if attn_mask.shape[0] == 1 else \
            attn_mask.reshape(bsz, num_heads, -1, src_len)
    q = q.reshape(bsz, num_heads, tgt_len, head_dim)
    k = k.reshape(bsz, num_heads, src_len, head_dim)
    v = v.reshape(bsz, num_heads, src_len, head_dim)
    out = scaled_dot_product_attention(q, k, v, attn_mask, dropout_p, is_causal)
    out = out.permute(2, 0, 1, 3).reshape(bsz * tgt_len, embed_dim)
    out = linear(out, out_proj_weight, out_proj_bias).reshape(tgt_len, bsz, embed_dim)
    return (out if batched else out.squeeze(1)), None
