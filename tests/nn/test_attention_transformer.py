"""scaled_dot_product_attention, MultiheadAttention and the Transformer family against torch:
outputs, attention weights, input and parameter gradients, masks, reprs and state_dict keys.
Layers run with dropout 0 (or in eval mode) so both sides compute the same function."""
import warnings

import numpy as np
import pytest
import torch

import ember
from module_oracle import build_pair, check_module
from oracle import check, check_error

DTYPES = ["float32", "float64"]
R = np.random.default_rng(3)
BOOL_MASK = R.random((3, 5)) > 0.4
BOOL_MASK[1] = False          # one query sees no key: torch's CPU kernel returns zeros
PADDING = np.zeros((2, 5), dtype=bool)
PADDING[0, 3:] = True


def sdpa(lib):
    return lib.nn.functional.scaled_dot_product_attention


def causal(lib, n, m=None):
    return lib.triu(lib.full((n, m or n), float("-inf")), diagonal=1)


@pytest.mark.parametrize("dtype", DTYPES)
def test_sdpa(dtype):
    q, kv = (2, 2, 3, 4), (2, 2, 5, 4)
    check(lambda lib, q, k, v: sdpa(lib)(q, k, v), q, kv, kv, dtype=dtype)
    check(lambda lib, q, k, v: sdpa(lib)(q, k, v, is_causal=True, scale=0.3), q, kv, kv,
          dtype=dtype)
    check(lambda lib, q, k, v, m: sdpa(lib)(q, k, v, attn_mask=m), q, kv, kv, BOOL_MASK,
          dtype=dtype)
    check(lambda lib, q, k, v: sdpa(lib)(q, k, v, is_causal=True), (2, 5, 4), (2, 3, 4),
          (2, 3, 4), dtype=dtype)
    check(lambda lib, q, k, v, m: sdpa(lib)(q, k, v, attn_mask=m), q, kv, kv, (2, 1, 3, 5),
          dtype=dtype)
    check(lambda lib, q, k, v: sdpa(lib)(q, k, v, enable_gqa=True), (2, 4, 3, 4), kv, kv,
          dtype=dtype)
    check(lambda lib, q, k, v: sdpa(lib)(q, k, v), (3, 4), (5, 4), (5, 6), dtype=dtype)


def test_sdpa_output_is_laid_out_as_the_query():
    # the SDPA tutorial's CausalSelfAttention does y.transpose(1, 2).view(B, T, H * E) on the
    # output for (B, T, H, E)-ordered projections: torch's CPU flash kernel keeps q's layout
    def heads(lib, x):        # (B, T, 3 * H * E) -> three (B, H, T, E) views
        return [t.view(2, 5, 4, 3).transpose(1, 2) for t in x.chunk(3, -1)]

    def attend(lib, x):
        y = sdpa(lib)(*heads(lib, x), is_causal=True)
        return y.transpose(1, 2).view(2, 5, 12), y.stride()
    check(attend, (2, 5, 36))

    def strides(lib):
        x = lib.randn(2, 5, 36)
        q, k, v = heads(lib, x)
        with lib.nn.attention.sdpa_kernel(lib.nn.attention.SDPBackend.MATH):
            math = sdpa(lib)(q, k, v).stride()
        return (sdpa(lib)(q, k, v).stride(), math,
                sdpa(lib)(q.contiguous(), k, v).stride(),
                sdpa(lib)(lib.randn(4, 2, 5, 3).transpose(0, 1), k, v).stride(),
                sdpa(lib)(q, k, v, dropout_p=0.5).stride())
    assert strides(ember) == strides(torch)


def test_sdpa_dropout_statistics():
    ember.manual_seed(0)
    q = ember.zeros(1, 1, 400, 4)
    v = ember.ones(1, 1, 400, 1)
    out = sdpa(ember)(q, q, v, dropout_p=0.5).numpy()    # uniform weights, mean 1 after scale
    assert abs(out.mean() - 1.0) < 0.05 and out.std() > 0.01


MHA = [
    (lambda lib: lib.nn.MultiheadAttention(8, 2), ((3, 2, 8), (5, 2, 8), (5, 2, 8)), {}),
    (lambda lib: lib.nn.MultiheadAttention(8, 2), ((3, 2, 8), (5, 2, 8), (5, 2, 8), PADDING),
     {"kpm": True}),
    (lambda lib: lib.nn.MultiheadAttention(8, 4, batch_first=True),
     ((2, 3, 8), (2, 5, 8), (2, 5, 8), PADDING, BOOL_MASK),
     {"kpm": True, "mask": True, "average_attn_weights": False}),
    (lambda lib: lib.nn.MultiheadAttention(8, 2, kdim=3, vdim=5, add_bias_kv=True,
                                           add_zero_attn=True, batch_first=True),
     ((2, 3, 8), (2, 4, 3), (2, 4, 5)), {}),
    (lambda lib: lib.nn.MultiheadAttention(8, 2, bias=False), ((3, 8), (5, 8), (5, 8)),
     {"need_weights": False}),
    (lambda lib: lib.nn.MultiheadAttention(6, 3, dropout=0.5), ((3, 2, 6), (5, 2, 6), (5, 2, 6)),
     {"eval": True}),
]


def _mha_call(opts):
    def call(m, q, k, v, *masks):
        kwargs = {k: opts[k] for k in ("need_weights", "average_attn_weights") if k in opts}
        masks = list(masks)
        if opts.get("kpm"):
            kwargs["key_padding_mask"] = masks.pop(0)
        if opts.get("mask"):
            kwargs["attn_mask"] = masks.pop(0)
        return m(q, k, v, **kwargs)
    return call


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("make,specs,opts", MHA)
def test_multihead_attention(make, specs, opts, dtype):
    check_module(make, *specs, dtype=dtype, call=_mha_call(opts), train=not opts.get("eval"))


@pytest.mark.parametrize("need_weights", [True, False])
def test_multihead_self_attention_causal(need_weights):
    def call(m, x):
        lib = torch if isinstance(x, torch.Tensor) else ember
        return m(x, x, x, attn_mask=causal(lib, 4), need_weights=need_weights, is_causal=True)
    check_module(lambda lib: lib.nn.MultiheadAttention(8, 2), (4, 2, 8), call=call)


def test_multihead_attention_float_masks_and_3d_mask():
    def call(m, q, k, v, mask3d):
        lib = torch if isinstance(q, torch.Tensor) else ember
        kpm = lib.zeros(2, 5).masked_fill(lib.tensor(PADDING), float("-inf"))
        return m(q, k, v, key_padding_mask=kpm, attn_mask=mask3d.detach())
    check_module(lambda lib: lib.nn.MultiheadAttention(8, 2), (3, 2, 8), (5, 2, 8), (5, 2, 8),
                 (4, 3, 5), call=call)


def test_multihead_attention_keys_and_repr():
    t, e = build_pair(lambda lib: lib.nn.MultiheadAttention(8, 2))
    assert list(e.state_dict()) == ["in_proj_weight", "in_proj_bias", "out_proj.weight",
                                    "out_proj.bias"]
    assert repr(e) == repr(t)
    t, e = build_pair(lambda lib: lib.nn.MultiheadAttention(8, 2, kdim=3, vdim=5,
                                                            add_bias_kv=True))
    assert list(e.state_dict()) == list(t.state_dict())
    assert e.in_proj_weight is None and e.q_proj_weight.shape == (8, 8)


@pytest.mark.parametrize("fn,exc,match", [
    (lambda lib: sdpa(lib)(lib.zeros(1, 2, 3, requires_grad=True), lib.zeros(1, 2, 3),
                           lib.zeros(1, 2, 3), attn_mask=lib.zeros(2, 2), is_causal=True),
     RuntimeError, "Explicit attn_mask should not be set when is_causal=True"),
    (lambda lib: lib.nn.MultiheadAttention(0, 2), ValueError,
     "embed_dim and num_heads must be greater than 0"),
    (lambda lib: lib.nn.MultiheadAttention(6, 4), AssertionError,
     "embed_dim must be divisible by num_heads"),
    (lambda lib: lib.nn.MultiheadAttention(4, 2)(lib.zeros(3, 1, 4), lib.zeros(3, 1, 4),
                                                 lib.zeros(3, 1, 4), attn_mask=lib.zeros(2, 3)),
     RuntimeError, r"The shape of the 2D attn_mask is"),
    (lambda lib: lib.nn.MultiheadAttention(4, 2)(lib.zeros(3, 1, 4), lib.zeros(3, 1, 4),
                                                 lib.zeros(3, 1, 4), is_causal=True),
     RuntimeError, "Need attn_mask if specifying the is_causal hint"),
    (lambda lib: lib.nn.TransformerEncoderLayer(4, 2, activation="tanh"), RuntimeError,
     "activation should be relu/gelu, not tanh"),
    (lambda lib: lib.nn.Transformer(4, 2, 1, 1, 8)(lib.zeros(3, 2, 4), lib.zeros(3, 1, 4)),
     RuntimeError, "the batch number of src and tgt must be equal"),
    (lambda lib: lib.nn.Transformer(4, 2, 1, 1, 8)(lib.zeros(3, 2, 4), lib.zeros(3, 2, 5)),
     RuntimeError, "the feature number of src and tgt must be equal to d_model"),
])
def test_attention_errors(fn, exc, match):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_error(fn, exc, match)


TRANSFORMER_LAYERS = [
    (lambda lib: lib.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0), ((5, 2, 8),),
     lambda m, x: m(x)),
    (lambda lib: lib.nn.TransformerEncoderLayer(8, 2, 16, norm_first=True, batch_first=True,
                                                activation="gelu", dropout=0.0),
     ((2, 5, 8), PADDING), lambda m, x, p: m(x, src_key_padding_mask=p)),
    (lambda lib: lib.nn.TransformerEncoderLayer(8, 2, 16, activation=lib.nn.GELU(),
                                                bias=False, dropout=0.0),
     ((5, 8),), lambda m, x: m(x)),
    (lambda lib: lib.nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0),
     ((3, 2, 8), (5, 2, 8), PADDING),
     lambda m, t, s, p: m(t, s, memory_key_padding_mask=p)),
    (lambda lib: lib.nn.TransformerDecoderLayer(8, 4, 16, norm_first=True, batch_first=True,
                                                dropout=0.0),
     ((2, 3, 8), (2, 5, 8)),
     lambda m, t, s: m(t, s, tgt_mask=causal(torch if isinstance(t, torch.Tensor) else ember,
                                             3), tgt_is_causal=True)),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("make,specs,call", TRANSFORMER_LAYERS)
def test_transformer_layers(make, specs, call, dtype):
    check_module(make, *specs, dtype=dtype, call=call, atol=1e-4 if dtype == "float32" else None)


def _stacks(lib):
    nn = lib.nn
    encoder = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16), 2, nn.LayerNorm(8))
    decoder = nn.TransformerDecoder(nn.TransformerDecoderLayer(8, 2, 16), 2)
    return nn.ModuleDict({"encoder": encoder, "decoder": decoder})


def test_encoder_decoder_stacks_eval():
    def call(m, src, tgt):
        lib = torch if isinstance(src, torch.Tensor) else ember
        memory = m["encoder"](src, mask=causal(lib, 5))      # detected as causal
        return m["decoder"](tgt, memory, tgt_mask=causal(lib, 3))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check_module(_stacks, (5, 2, 8), (3, 2, 8), call=call, train=False, atol=1e-4)


def test_full_transformer_eval_with_masks():
    def call(m, src, tgt, pad):
        return m(src, tgt, tgt_mask=m.generate_square_subsequent_mask(3),
                 src_key_padding_mask=pad, memory_key_padding_mask=pad)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t, e = check_module(lambda lib: lib.nn.Transformer(8, 2, 2, 2, 16), (5, 2, 8),
                            (3, 2, 8), PADDING, call=call, train=False, atol=1e-4, rtol=1e-4)
    assert list(e.state_dict()) == list(t.state_dict())
    assert repr(e) == repr(t)


def test_square_subsequent_mask_and_nested_tensor_warning():
    for lib in (torch, ember):
        mask = lib.nn.Transformer.generate_square_subsequent_mask(3).numpy()
        np.testing.assert_array_equal(mask, np.triu(np.full((3, 3), -np.inf), 1))
    with pytest.warns(UserWarning, match="enable_nested_tensor is True, but self.use_nested_"
                                         "tensor is False because encoder_layer.norm_first"):
        ember.nn.TransformerEncoder(ember.nn.TransformerEncoderLayer(8, 2, norm_first=True), 1)


def test_causal_bias_masks():
    # the SDPA tutorial's torch.nn.attention.bias section
    def fn(lib, q, k, v):
        from importlib import import_module
        bias = import_module(lib.__name__ + ".nn.attention.bias")
        upper, lower = bias.causal_upper_left(2, 5), bias.causal_lower_right(2, 5)
        assert isinstance(upper, lib.Tensor) and type(upper) is type(lower)
        assert (upper.variant, lower.seq_len_q, lower.seq_len_kv) == (
            bias.CausalVariant.UPPER_LEFT, 2, 5)
        return (sdpa(lib)(q, k, v, upper), sdpa(lib)(q, k, v, lower),
                upper._materialize(), lower._materialize(), repr(lower))
    check(fn, (2, 3, 2, 4), (2, 3, 5, 4), (2, 3, 5, 4))
    check_error(lambda lib: __import__(lib.__name__ + ".nn.attention.bias", fromlist=["x"])
                .causal_upper_left(2, 3, 4), AssertionError,
                "^causal_upper_left only supports 2D tensors$")
