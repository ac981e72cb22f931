"""torch.nn.attention.flex_attention against torch's unfused (eager) implementation: block
masks (their block listings), score_mod, masks, GQA, logsumexp; no gradients on the CPU."""
import importlib
import warnings

import numpy as np
import pytest
import torch

import ember
from oracle import check, check_error


def _flex(lib):
    return importlib.import_module(f"{lib.__name__}.nn.attention.flex_attention")


def causal(b, h, q_idx, kv_idx):
    return q_idx >= kv_idx


def window(b, h, q_idx, kv_idx):
    return (q_idx - kv_idx).abs() <= 3


def rel_bias(score, b, h, q_idx, kv_idx):
    return score + (q_idx - kv_idx) * 0.1 + h


def _quiet(fn):
    """torch warns that eager flex_attention is unfused, and that return_lse is deprecated."""
    def run(*args, **kwargs):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fn(*args, **kwargs)
    return run


@pytest.mark.parametrize("B,H,Q,KV,block", [(2, 2, 10, 12, 4), (1, None, 7, 5, 2),
                                            (None, 3, 16, 16, (8, 4))])
@pytest.mark.parametrize("mask_mod", ["causal", "window", "and", "or"])
def test_create_block_mask_lists_blocks_as_torch(B, H, Q, KV, block, mask_mod):
    def run(lib):
        fa = _flex(lib)
        mod = {"causal": causal, "window": window,
               "and": fa.and_masks(causal, window), "or": fa.or_masks(causal, window)}[mask_mod]
        bm = fa.create_block_mask(mod, B, H, Q, KV, device="cpu", BLOCK_SIZE=block)
        fields = [bm.kv_num_blocks, bm.kv_indices, bm.full_kv_num_blocks, bm.full_kv_indices,
                  bm.q_num_blocks, bm.q_indices, bm.full_q_num_blocks, bm.full_q_indices,
                  bm.to_dense(), fa.create_mask(mod, B, H, Q, KV, device="cpu")]
        return ([(str(f.dtype), f.tolist()) for f in fields],
                tuple(bm.shape), bm.BLOCK_SIZE, round(bm.sparsity(), 6), repr(bm))
    assert run(ember) == run(torch)


@pytest.mark.parametrize("case", ["plain", "causal", "score_mod", "both", "gqa", "lse",
                                  "aux", "scale"])
def test_flex_attention_values(case):
    B, H, Q, KV, D = 2, 2, 6, 9, 4

    @_quiet
    def fn(lib, q, k, v):
        fa = _flex(lib)
        bm = fa.create_block_mask(causal, B, None, Q, KV, device="cpu", BLOCK_SIZE=4)
        if case == "plain":
            return fa.flex_attention(q, k, v)
        if case == "causal":
            return fa.flex_attention(q, k, v, block_mask=bm)
        if case == "score_mod":
            return fa.flex_attention(q, k, v, score_mod=rel_bias)
        if case == "both":
            return fa.flex_attention(q, k, v, score_mod=rel_bias, block_mask=bm)
        if case == "gqa":
            return fa.flex_attention(q, k[:, :1], v[:, :1], block_mask=bm, enable_gqa=True)
        if case == "lse":
            return fa.flex_attention(q, k, v, block_mask=bm, return_lse=True)
        if case == "aux":
            out, aux = fa.flex_attention(q, k, v, block_mask=bm,
                                         return_aux=fa.AuxRequest(lse=True))
            assert aux.max_scores is None
            return out, aux.lse
        return fa.flex_attention(q, k, v, score_mod=rel_bias, scale=0.3)
    check(fn, (B, H, Q, D), (B, H, KV, D), (B, H, KV, D), atol=1e-5, rtol=1e-4, grad=False)


def test_rows_with_nothing_to_attend_give_zeros():
    @_quiet
    def run(lib):
        fa = _flex(lib)
        q = lib.tensor(np.ones((1, 1, 4, 2), dtype=np.float32))
        kv = lib.tensor(np.ones((1, 1, 4, 2), dtype=np.float32))
        bm = fa.create_block_mask(lambda b, h, q_idx, kv_idx: q_idx < 2, 1, 1, 4, 4,
                                  device="cpu", BLOCK_SIZE=2)
        out, lse = fa.flex_attention(q, kv, kv, block_mask=bm, return_lse=True)
        return out.tolist(), lse.tolist()
    assert run(ember) == run(torch)


def test_errors():
    def call(lib, enable_gqa, kv_heads):
        q, kv = lib.ones(1, 4, 2, 2), lib.ones(1, kv_heads, 2, 2)
        _quiet(_flex(lib).flex_attention)(q, kv, kv, enable_gqa=enable_gqa)
    check_error(lambda lib: call(lib, False, 2), ValueError,
                "^Expect query and key/value to have the same number of heads")
    check_error(lambda lib: _quiet(_flex(lib).flex_attention)(
        lib.ones(1, 1, 2, 2, requires_grad=True), lib.ones(1, 1, 2, 2), lib.ones(1, 1, 2, 2)),
        NotImplementedError, "^FlexAttention does not support backward on CPU")
    check_error(lambda lib: _quiet(_flex(lib).flex_attention)(
        lib.ones(1, 1, 2, 2), lib.ones(1, 1, 2, 2), lib.ones(1, 1, 2, 2),
        return_aux=_flex(lib).AuxRequest(max_scores=True)),
        NotImplementedError, "^Returning max scores is not supported on CPU")
