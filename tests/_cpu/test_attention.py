"""The `attention` kernel family (ember/_cpu/attention.py and its numba twin) through
F.scaled_dot_product_attention's fused node, against torch: values, gradients, double
backward and node names in both kernel modes; dropout's mask shared by forward and
backward; and the two implementations against each other on the same arrays."""
import math

import numpy as np
import pytest
import torch

import ember
from ember._cpu import attention as reference
from oracle import check, check_error

DTYPES = ["float32", "float64"]
R = np.random.default_rng(7)


def sdpa(**kwargs):
    return lambda lib, q, k, v: lib.nn.functional.scaled_dot_product_attention(q, k, v, **kwargs)


def masked(**kwargs):
    """sdpa with the last input as attn_mask."""
    return lambda lib, q, k, v, m: lib.nn.functional.scaled_dot_product_attention(
        q, k, v, attn_mask=m, **kwargs)


BOOL_MASK = R.random((2, 1, 6, 11)) > 0.3
BOOL_MASK[0, 0, 2] = False                       # a query that sees no key: zeros
FLOAT_MASK = R.standard_normal((6, 11))
FLOAT_MASK[4] = -np.inf                          # the same through a float mask

CASES = [   # (function, input specs): odd sizes, rows longer than 8 and shorter
    (sdpa(is_causal=True), [(2, 3, 9, 5)] * 3),
    (sdpa(is_causal=True), [(2, 3, 70, 4), (2, 3, 70, 4), (2, 3, 70, 6)]),
    (sdpa(is_causal=True), [(2, 7, 5), (2, 3, 5), (2, 3, 5)]),            # L > S
    (sdpa(is_causal=True), [(2, 3, 5), (2, 12, 5), (2, 12, 5)]),          # L < S
    (sdpa(is_causal=True, scale=0.3), [(4, 5), (4, 5), (4, 3)]),          # unbatched
    (sdpa(), [(3, 2, 6, 4), (3, 2, 11, 4), (3, 2, 11, 4)]),
    (sdpa(scale=-1.5), [(1, 1, 1, 3), (1, 1, 1, 3), (1, 1, 1, 2)]),
    (sdpa(enable_gqa=True), [(2, 4, 3, 4), (2, 2, 5, 4), (2, 2, 5, 4)]),
    (masked(), [(2, 2, 6, 4), (2, 2, 11, 4), (2, 2, 11, 4), BOOL_MASK]),
    (masked(), [(2, 2, 6, 4), (2, 2, 11, 4), (2, 2, 11, 4), FLOAT_MASK]),
    (masked(scale=0.5), [(6, 4), (11, 4), (11, 4), BOOL_MASK[1, 0]]),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("fn,specs", CASES)
def test_values_and_gradients(kernels, fn, specs, dtype):
    specs = [s if isinstance(s, tuple) or s.dtype == bool else s.astype(dtype) for s in specs]
    check(fn, *specs, dtype=dtype, grad_inputs=(0, 1, 2))


def test_gpt_layout_non_contiguous_inputs(kernels):
    # nanoGPT's q, k, v: slices of one projection, viewed (B, T, H, hs) and transposed.
    def heads(lib, qkv):
        q, k, v = qkv.split(8, dim=2)
        q, k, v = (t.view(2, 9, 2, 4).transpose(1, 2) for t in (q, k, v))
        return lib.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
    check(heads, (2, 9, 24))
    check(sdpa(is_causal=True), (2, 5, 3), (2, 5, 3), (2, 5, 3), non_contiguous=True)


@pytest.mark.parametrize("fn,specs", [CASES[0], CASES[2], CASES[4], CASES[9]])
def test_double_backward(kernels, fn, specs):
    """create_graph=True rebuilds the backward from ember ops: second derivatives match
    torch's math kernel (its CPU flash kernel has no double backward)."""
    arrays = [R.standard_normal(s) if isinstance(s, tuple) else s for s in specs]
    grads = []
    for lib in (torch, ember):
        inputs = [lib.tensor(a, requires_grad=i < 3) for i, a in enumerate(arrays)]
        with lib.nn.attention.sdpa_kernel(lib.nn.attention.SDPBackend.MATH):
            out = fn(lib, *inputs)
        first = lib.autograd.grad((out * out).sum(), inputs[:3], create_graph=True)
        second = lib.autograd.grad(sum((g * g).sum() for g in first), inputs[:3])
        grads.append([g.detach().numpy() for g in first + second])
    for mine, theirs in zip(grads[1], grads[0]):
        np.testing.assert_allclose(mine, theirs, rtol=1e-7, atol=1e-9)


@pytest.mark.parametrize("shapes,kwargs", [
    ([(2, 2, 5, 4)] * 3, {"is_causal": True}), ([(2, 5, 4)] * 3, {}), ([(5, 4)] * 3, {}),
    ([(2, 2, 5, 4)] * 3, {"dropout_p": 0.5}), ([(2, 2, 5, 4), (2, 2, 5, 4), (2, 2, 5, 3)], {}),
])
def test_node_names_are_torchs(kernels, shapes, kwargs):
    names = []
    for lib in (torch, ember):
        q, k, v = (lib.randn(*s, requires_grad=True) for s in shapes)
        names.append(type(lib.nn.functional.scaled_dot_product_attention(
            q, k, v, **kwargs).grad_fn).__name__)
    assert names[1] == names[0]


@pytest.mark.parametrize("specs,kwargs", [
    ([(2, 3, 0, 4), (2, 3, 5, 4), (2, 3, 5, 4)], {}),      # no queries
    ([(2, 3, 4), (2, 0, 4), (2, 0, 5)], {}),               # no keys: zeros
    ([(2, 1, 3, 4), (1, 2, 5, 4), (2, 2, 5, 4)], {}),      # broadcast batch dims
])
def test_calls_the_fused_node_leaves_to_ember_ops(kernels, specs, kwargs):
    check(sdpa(**kwargs), *specs)


def test_query_key_and_value_need_one_dtype(kernels):
    check_error(lambda lib: lib.nn.functional.scaled_dot_product_attention(
        lib.zeros(2, 3, 4), lib.zeros(2, 3, 4, dtype=lib.float64), lib.zeros(2, 3, 4)),
        RuntimeError, "Expected query, key, and value to have the same dtype, but got "
        "query.dtype: float key.dtype: double and value.dtype: float instead")


def test_a_nan_in_a_later_key_reaches_only_the_queries_that_see_it(kernels):
    # as torch's CPU kernel: the hidden (later) keys take no part at all
    k = R.standard_normal((1, 2, 6, 3)).astype(np.float32)
    k[0, 1, 4, 0] = np.nan
    check(sdpa(is_causal=True), (1, 2, 6, 3), k, (1, 2, 6, 3), grad=False)


def test_a_mask_that_needs_a_gradient_gets_one(kernels):
    check(masked(), (2, 6, 4), (2, 11, 4), (2, 11, 4), FLOAT_MASK.astype("float32"))


def test_mask_dtypes_follow_torch(kernels):
    # a float32 mask joins float64 scores; other mask dtypes are refused with torch's words
    check(masked(), (2, 6, 4), (2, 11, 4), (2, 11, 4), FLOAT_MASK.astype("float32"),
          dtype="float64", grad_inputs=(0, 1, 2))
    for mask in (FLOAT_MASK.astype("float16"), np.ones((6, 11), dtype=np.int32)):
        check_error(lambda lib: lib.nn.functional.scaled_dot_product_attention(
            *(lib.zeros(2, n, 4, dtype=lib.float64) for n in (6, 11, 11)),
            attn_mask=lib.tensor(mask)), RuntimeError,
            "Expected attn_mask dtype to be bool or float or to match query dtype, but got "
            r"attn_mask.dtype: (c10::Half|int) and  query.dtype: double instead")


def test_low_precision_takes_the_ember_ops_path(kernels):
    check(sdpa(is_causal=True), (2, 5, 4), (2, 5, 4), (2, 5, 4), dtype="bfloat16")


# ---------------------------------------------------------------- dropout
def _composite(q, k, v, p, causal):
    """Attention from ember ops, with F.dropout on the weights: the same draws as the
    fused node's (one draw per weight from the default generator)."""
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])
    if causal:
        hidden = ember.ones(q.shape[-2], k.shape[-2], dtype=ember.bool).triu(1)
        scores = scores.masked_fill(hidden, float("-inf"))
    weights = ember.nn.functional.dropout(scores.softmax(-1), p)
    return weights @ v


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("causal", [False, True])
def test_dropout_mask_and_scale_are_the_same_in_forward_and_backward(kernels, dtype, causal):
    arrays = [R.standard_normal((2, 3, 7, 5)).astype(dtype) for _ in range(3)]
    g = ember.tensor(R.standard_normal((2, 3, 7, 5)).astype(dtype))
    results = []
    for run in (lambda q, k, v: ember.nn.functional.scaled_dot_product_attention(
            q, k, v, dropout_p=0.4, is_causal=causal), lambda q, k, v: _composite(
            q, k, v, 0.4, causal)):
        inputs = [ember.tensor(a, requires_grad=True) for a in arrays]
        ember.manual_seed(3)
        out = run(*inputs)
        out.backward(g)
        results.append([out.detach().numpy()] + [t.grad.numpy() for t in inputs])
    tol = 1e-5 if dtype == "float32" else 1e-12
    for fused, composite in zip(*results):
        np.testing.assert_allclose(fused, composite, rtol=tol, atol=tol)


def test_dropout_draws_are_the_same_in_both_kernel_modes():
    q, k, v = (ember.tensor(R.standard_normal((2, 2, 6, 4))) for _ in range(3))
    outs = []
    for mode in ("numpy", "numba"):
        if mode == "numba" and not ember._cpu.kernels.numba_available():
            pytest.skip("numba is not installed")
        with ember.backends.cpu.flags(kernels=mode):
            ember.manual_seed(11)
            outs.append(ember.nn.functional.scaled_dot_product_attention(
                q, k, v, dropout_p=0.3).numpy())
    np.testing.assert_allclose(outs[0], outs[1], rtol=1e-12)


def test_dropout_statistics(kernels):
    ember.manual_seed(0)
    q = ember.zeros(2, 2, 300, 4)
    v = ember.ones(2, 2, 300, 1)
    # uniform weights 1/300: each output is (kept count) / 300 / (1 - p), mean 1
    out = ember.nn.functional.scaled_dot_product_attention(q, q, v, dropout_p=0.25).numpy()
    assert abs(out.mean() - 1.0) < 0.02 and 0.03 < out.std() < 0.07
    everything = ember.nn.functional.scaled_dot_product_attention(q, q, v, dropout_p=1.0)
    assert not everything.numpy().any()


# ---------------------------------------------------------------- the kernels themselves
def _scores_and_masks(dtype, n=3, length=9, source=13):
    scores = R.standard_normal((n, length, source)).astype(dtype) * 4
    bias = R.standard_normal((1, length, source)).astype(dtype)
    bias[0, 1] = -np.inf
    allowed = R.random((n, 1, source)) > 0.3
    allowed[1] = False
    keep = R.random((n, length, source)) > 0.4
    return scores, bias, allowed, keep


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("masks", ["none", "bias", "allowed", "keep"])
def test_numba_kernels_agree_with_the_reference(dtype, causal, masks):
    compiled = pytest.importorskip("ember._cpu.numba.attention")
    scores, bias, allowed, keep = _scores_and_masks(dtype)
    args = {"bias": bias if masks == "bias" else None,
            "allowed": allowed if masks == "allowed" else None,
            "keep": keep if masks == "keep" else None}
    results = []
    for family in (reference, compiled):
        probs = scores.copy()
        weights = np.full_like(scores, np.nan)
        out = family.attention_weights(probs, 0.4, causal, args["bias"], args["allowed"],
                                       args["keep"], 0.3, weights)
        assert out is (probs if masks != "keep" else weights)
        grad = family.attention_weights_backward(scores.copy(), probs, 0.4, causal,
                                                 args["keep"], 0.3)
        results.append((probs, out, grad))
    tol = 2e-6 if dtype == "float32" else 1e-14
    for mine, theirs in zip(results[1], results[0]):
        np.testing.assert_allclose(mine, theirs, rtol=tol, atol=tol)
    assert np.isfinite(results[1][0]).all()         # rows that see nothing are zeros


def test_numba_kernels_fall_back_to_the_reference_for_other_dtypes():
    compiled = pytest.importorskip("ember._cpu.numba.attention")
    scores, bias, _, keep = _scores_and_masks("float16")
    expected = reference.attention_weights(scores.copy(), 0.5, True, bias, None, keep, 0.2,
                                           np.empty_like(scores))
    got = compiled.attention_weights(scores.copy(), 0.5, True, bias, None, keep, 0.2,
                                     np.empty_like(scores))
    np.testing.assert_array_equal(got, expected)
    # a float64 bias with float32 scores is not compiled either: the reference runs
    scores32 = scores.astype(np.float32)
    expected = reference.attention_weights(scores32.copy(), 0.5, False, bias.astype(float),
                                           None, None, 0.0, None)
    got = compiled.attention_weights(scores32.copy(), 0.5, False, bias.astype(float), None,
                                     None, 0.0, None)
    np.testing.assert_array_equal(got, expected)


def test_causal_hidden_is_torchs_top_left_triangle():
    hidden = reference.causal_hidden(3, 5)
    expected = ~torch.ones(3, 5, dtype=torch.bool).tril().numpy()
    np.testing.assert_array_equal(hidden, expected)
    assert not hidden.flags.writeable
