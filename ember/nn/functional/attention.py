"""Attention: scaled_dot_product_attention and multi_head_attention_forward (the math
behind nn.MultiheadAttention), plus torch's mask canonicalisation helpers."""
from __future__ import annotations

import math
import warnings

import numpy as np

from ..._cpu import buffers, kernels
from ..._cpu.attention import causal_hidden
from ..._cpu.dropout import dropout_factor
from ..._cpu.parallel import parallel_for, split, threads
from ..._cpu.scratch import ThreadScratch
from ..._dtype import bool as bool_, float32, float64
from ..._tensor import Tensor
from ...autograd.function import Function
from ...autograd.fused_backward import FusedBackward
from ...ops.creation import zeros, zeros_like
from ...ops.joining import cat
from ...ops.linalg import bmm, baddbmm
from .activation import softmax
from .dropout import dropout, keep_draws
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
    if not query.dtype == key.dtype == value.dtype:
        raise RuntimeError("Expected query, key, and value to have the same dtype, but got "
                           f"query.dtype: {query.dtype.cpp_name} key.dtype: {key.dtype.cpp_name} "
                           f"and value.dtype: {value.dtype.cpp_name} instead.")
    if attn_mask is not None and attn_mask.dtype != bool_ and attn_mask.dtype != query.dtype:
        if attn_mask.dtype != float32:
            raise RuntimeError("Expected attn_mask dtype to be bool or float or to match query "
                               f"dtype, but got attn_mask.dtype: {attn_mask.dtype.cpp_name} and "
                               f" query.dtype: {query.dtype.cpp_name} instead.")
        attn_mask = attn_mask.to(query.dtype)       # the scores' dtype, as in torch
    scale = 1.0 / math.sqrt(query.shape[-1]) if scale is None else scale
    if enable_gqa and query.dim() >= 3:
        repeats = query.shape[-3] // key.shape[-3]
        key = key.repeat_interleave(repeats, -3)
        value = value.repeat_interleave(repeats, -3)
    if _fusable(query, key, value, attn_mask):
        return _fused(query, key, value, attn_mask, dropout_p, is_causal, scale)
    weights = _probabilities(query, key, scale, is_causal, attn_mask)
    if dropout_p > 0.0:
        weights = dropout(weights, dropout_p, training=True)
    return weights @ value


def _probabilities(query: Tensor, key: Tensor, scale: float, is_causal: bool,
                   attn_mask) -> Tensor:
    """softmax(q k^T * scale + mask) in ember ops, zero for queries that see no key."""
    scores = query @ key.transpose(-2, -1) * scale
    if is_causal:
        scores = scores.masked_fill(Tensor._wrap(causal_hidden(query.shape[-2], key.shape[-2])),
                                    float("-inf"))
    elif attn_mask is not None:
        if attn_mask.dtype == bool_:
            scores = scores.masked_fill(~attn_mask, float("-inf"))
        else:
            scores = scores + attn_mask
    # Rows that see no key: softmax of finite stand-ins, then zeros (no NaN in any
    # derivative). The rows are found by ops, so that a compiled plan finds each call's.
    dead = scores.detach().isneginf().all(dim=-1, keepdim=True)
    return softmax(scores.masked_fill(dead, 0.0), dim=-1).masked_fill(dead, 0.0)


# ---------------------------------------------------------------- the fused attention node
_FUSED_DTYPES = (float32, float64)
_SCRATCH = ThreadScratch()      # the scores' gradient, a temporary of the backward


def _fusable(query: Tensor, key: Tensor, value: Tensor, attn_mask) -> bool:
    """Whether one _Attention node can compute this call: float32/float64 q, k, v with one
    batch shape and no empty dim, and a bool mask or a float mask of their dtype that needs
    no gradient, broadcastable to the scores. Other calls take the ember-ops path (which
    also raises torch's errors for bad shapes)."""
    dtype = query.dtype
    if dtype not in _FUSED_DTYPES or key.dtype is not dtype or value.dtype is not dtype:
        return False
    q, k, v = query.shape, key.shape, value.shape
    if not (len(q) == len(k) == len(v) >= 2) or 0 in q or 0 in k or 0 in v:
        return False
    if not (q[:-2] == k[:-2] == v[:-2] and q[-1] == k[-1] and k[-2] == v[-2]):
        return False
    if attn_mask is None:
        return True
    if attn_mask.requires_grad or attn_mask.dtype not in (bool_, query.dtype):
        return False
    scores = q[:-1] + (k[-2],)
    try:
        return np.broadcast_shapes(attn_mask.shape, scores) == scores
    except ValueError:
        return False


def _fused(query, key, value, attn_mask, dropout_p: float, is_causal: bool, scale: float):
    bias = allowed = keep = None
    if attn_mask is not None:
        if attn_mask.dtype == bool_:
            allowed = attn_mask.numpy(force=True)
        else:
            bias = attn_mask.numpy(force=True)
    if dropout_p > 0.0:
        keep = keep_draws(query.shape[:-1] + (key.shape[-2],), dropout_p)
    from ..attention import _flash_attention_fits, _switches
    if query.ndim == 2:
        node = _MatrixAttention
    elif _switches.flash_sdp_enabled() and _flash_attention_fits(query, key, value, dropout_p):
        node = _Attention
    else:
        node = _MathAttention
    return node.apply(query, key, value, scale, is_causal, bias, allowed, keep, dropout_p)


def _laid_out_as(q: np.ndarray, shape: tuple) -> np.ndarray:
    """An empty array of `shape` (batch..., L, E) whose leading dims sit in memory in the
    order of q's (largest stride first), with the last dim contiguous."""
    if q.strides[-1] != q.itemsize:
        return buffers.empty(shape, q.dtype)
    lead = q.ndim - 1
    order = sorted(range(lead), key=lambda d: -q.strides[d])   # stable: ties keep order
    out = buffers.empty(tuple(shape[d] for d in order) + shape[lead:], q.dtype)
    return out.transpose(tuple(np.argsort(order)) + (lead,))


def _pieces(batch: tuple) -> list:
    """Index tuples splitting the leading batch dim into blocks for the threads (one
    block for unbatched (L, E) inputs)."""
    if not batch:
        return [()]
    return [(part,) for part in split(batch[0], 2 * threads())]


def _rows(a: np.ndarray, length: int, source: int):
    """a (batch..., L, S) as (n, L, S) for the row kernels (None stays None)."""
    return None if a is None else a.reshape(-1, length, source)


class _Attention(Function):
    """softmax(scale * Q K^T + mask) V, with dropout, as one node: BLAS does the two
    products, kernels.family("attention") the rows between them; the batch is cut into
    blocks that run on the threads. Backward:
    dV = W^T dO, dW = dO V^T, dS = scale * P (dP - rowsum(dP P)) with dP = dW * keep /
    (1 - p), dQ = dS K, dK = dS^T Q, a FusedBackward (_AttentionGrads)."""
    backward_name = "ScaledDotProductFlashAttentionForCpuBackward0"
    # torch's CPU flash kernel lays its output out as the query (so the usual
    # y.transpose(1, 2).view(B, L, H * E) works on (B, L, H, E) projections); math: contiguous
    query_layout = True

    @classmethod
    def forward(cls, ctx, q, k, v, scale, causal, bias, allowed, keep, p):
        batch, length, source = q.shape[:-2], q.shape[-2], k.shape[-2]
        scores = buffers.empty(batch + (length, source), q.dtype)
        weights = scores if keep is None else buffers.empty(scores.shape, q.dtype)
        out_shape = batch + (length, v.shape[-1])
        out = (_laid_out_as(q, out_shape) if cls.query_layout
               else buffers.empty(out_shape, q.dtype))
        if bias is not None:
            bias = np.broadcast_to(bias, scores.shape)
        if allowed is not None:
            allowed = np.broadcast_to(allowed, scores.shape)
        family = kernels.family("attention")

        def piece(part):
            np.matmul(q[part], np.swapaxes(k[part], -1, -2), out=scores[part])
            family.attention_weights(
                _rows(scores[part], length, source), scale, causal,
                None if bias is None else _rows(bias[part], length, source),
                None if allowed is None else _rows(allowed[part], length, source),
                None if keep is None else _rows(keep[part], length, source), p,
                _rows(weights[part], length, source))
            np.matmul(weights[part], v[part], out=out[part])

        parallel_for(_pieces(batch), piece, scores.size)
        if any(ctx.needs_input_grad):
            ctx.save_for_backward(q, k, v)
            ctx.probs, ctx.weights = scores, weights
            ctx.options = (scale, causal, bias, allowed, keep, p)
        return out

    @staticmethod
    def backward(ctx, grad):
        query, key, value = ctx._unpacked_saved
        return _AttentionGrads.apply(grad, query, key, value, ctx.probs, ctx.weights,
                                     ctx.options, ctx.needs_input_grad[:3]) + (None,) * 6


class _AttentionGrads(FusedBackward):
    """_Attention's (dQ, dK, dV), each None unless `needs` asks for it: BLAS and the
    attention kernels from the forward's probabilities, and the same formulas in ember
    ops (probabilities recomputed from Q and K) when they are differentiated again."""
    backward_name = "MulBackward1"      # torch's node of dQ on its math path

    @staticmethod
    def forward(ctx, g, q, k, v, probs, weights, options, needs):
        ctx.save_for_backward(g, q, k, v)
        ctx.options, ctx.needs = options, needs
        scale, causal, _, _, keep, p = options
        need_q, need_k, need_v = needs
        length, source = probs.shape[-2:]
        d_q = np.empty_like(q) if need_q else None
        d_k = np.empty_like(k) if need_k else None
        d_v = np.empty_like(v) if need_v else None
        family = kernels.family("attention")

        def piece(part):
            if need_v:
                np.matmul(np.swapaxes(weights[part], -1, -2), g[part], out=d_v[part])
            if not (need_q or need_k):
                return
            np.matmul(g[part], np.swapaxes(v[part], -1, -2), out=d_scores[part])
            family.attention_weights_backward(
                _rows(d_scores[part], length, source), _rows(probs[part], length, source),
                scale, causal, None if keep is None else _rows(keep[part], length, source), p)
            if need_q:
                np.matmul(d_scores[part], k[part], out=d_q[part])
            if need_k:
                np.matmul(np.swapaxes(d_scores[part], -1, -2), q[part], out=d_k[part])

        with _SCRATCH.lend(probs.shape, probs.dtype) as d_scores:
            parallel_for(_pieces(probs.shape[:-2]), piece, probs.size)
        return d_q, d_k, d_v

    @staticmethod
    def derivative(ctx, grad, query, key, value):
        scale, causal, bias, allowed, keep, p = ctx.options
        need_q, need_k, need_v = ctx.needs
        mask = None
        if bias is not None:
            mask = Tensor._wrap(bias)
        elif allowed is not None:
            mask = Tensor._wrap(allowed)
        probs = _probabilities(query, key, scale, causal, mask)
        weights, d_probs = probs, grad @ value.transpose(-2, -1)
        if keep is not None:
            kept = Tensor._wrap(keep.astype(probs.dtype.numpy) * dropout_factor(p))
            weights, d_probs = probs * kept, d_probs * kept
        d_scores = probs * (d_probs - (d_probs * probs).sum(-1, keepdim=True)) * scale
        return (d_scores @ key if need_q else None,
                d_scores.transpose(-2, -1) @ query if need_k else None,
                weights.transpose(-2, -1) @ grad if need_v else None)


class _MathAttention(_Attention):
    """The same node where torch would run its math kernel (dropout, 3-D inputs), whose
    last recorded op is a view."""
    backward_name = "UnsafeViewBackward0"
    query_layout = False


class _MatrixAttention(_Attention):
    """The same node for unbatched (L, E) inputs, whose last op in torch is a matrix product."""
    backward_name = "MmBackward0"
    query_layout = False


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
