"""Forward-mode AD (ember/autograd/forward_ad.py and ember/autograd/_forward/): tangents
against torch's forward AD, the dual-level API and its errors, views, in-place ops, custom
Functions, and mixing with reverse mode."""
from __future__ import annotations

import numpy as np
import pytest
import torch

import ember
from oracle import check_error, check_jvp, same

F = "nn.functional"


def fn_of(path: str):
    """lib -> the function at `path` (dotted, under the library's root)."""
    def get(lib):
        obj = lib
        for part in path.split("."):
            obj = getattr(obj, part)
        return obj
    return get


# (id, fn(lib, *inputs), input specs, options)
OPS = [
    # pointwise, one input
    *[(name, (lambda n: lambda lib, x: getattr(lib, n)(x))(name), [(3, 4)], {})
      for name in ["exp", "expm1", "sin", "cos", "tan", "tanh", "sigmoid", "sinh", "cosh",
                   "atan", "asinh", "erf", "erfc", "neg", "abs", "relu", "square", "exp2",
                   "sign", "floor", "frac", "sinc", "deg2rad", "trunc"]],
    *[(name, (lambda n: lambda lib, x: getattr(lib, n)(x))(name), [(3, 4)], {"positive": True})
      for name in ["log", "log2", "log10", "log1p", "sqrt", "rsqrt", "reciprocal", "lgamma",
                   "digamma", "acosh"]],
    ("asin", lambda lib, x: lib.asin(x * 0.3), [(3, 4)], {}),
    ("logit", lambda lib, x: lib.logit(lib.sigmoid(x)), [(3, 4)], {}),
    # pointwise, two or more inputs, broadcasting
    ("add", lambda lib, x, y: x + y, [(3, 4), (4,)], {}),
    ("add_alpha", lambda lib, x, y: lib.add(x, y, alpha=2.5), [(3, 4), (3, 1)], {}),
    ("sub", lambda lib, x, y: x - y, [(3, 4), (4,)], {}),
    ("rsub", lambda lib, x: 2.0 - x, [(3, 4)], {}),
    ("mul", lambda lib, x, y: x * y, [(2, 3, 4), (3, 1)], {}),
    ("mul_scalar", lambda lib, x: x * 3.0, [(3, 4)], {}),
    ("div", lambda lib, x, y: x / y, [(3, 4), (4,)], {"positive": True}),
    ("rdiv", lambda lib, x: 2.0 / x, [(3, 4)], {"positive": True}),
    ("pow", lambda lib, x, y: x ** y, [(3, 4), (3, 4)], {"positive": True}),
    ("pow_scalar", lambda lib, x: x ** 3, [(3, 4)], {}),
    ("rpow", lambda lib, x: 2.0 ** x, [(3, 4)], {}),
    ("maximum", lambda lib, x, y: lib.maximum(x, y), [(3, 4), (4,)], {}),
    ("minimum", lambda lib, x, y: lib.minimum(x, y), [(3, 4), (3, 4)], {}),
    ("atan2", lambda lib, x, y: lib.atan2(x, y), [(3, 4), (3, 4)], {}),
    ("hypot", lambda lib, x, y: lib.hypot(x, y), [(3, 4), (3, 4)], {}),
    ("xlogy", lambda lib, x, y: lib.xlogy(x, y), [(3, 4), (3, 4)], {"positive": True}),
    ("logaddexp", lambda lib, x, y: lib.logaddexp(x, y), [(3, 4), (3, 4)], {}),
    ("clamp", lambda lib, x: lib.clamp(x, -0.5, 0.5), [(3, 4)], {}),
    ("clamp_tensor", lambda lib, x, lo: lib.clamp(x, min=lo), [(3, 4), (4,)], {}),
    ("lerp", lambda lib, x, y: lib.lerp(x, y, 0.3), [(3, 4), (3, 4)], {}),
    ("lerp_tensor", lambda lib, x, y, w: lib.lerp(x, y, w), [(3, 4), (3, 4), (3, 4)], {}),
    ("addcmul", lambda lib, x, y, z: lib.addcmul(x, y, z, value=0.5), [(3, 4), (3, 4), (4,)], {}),
    ("addcdiv", lambda lib, x, y, z: lib.addcdiv(x, y, z, value=0.5), [(3, 4), (3, 4), (4,)],
     {"positive": True}),
    ("where", lambda lib, x, y: lib.where(x > 0, x, y), [(3, 4), (4,)], {}),
    ("fmod", lambda lib, x: lib.fmod(x, 0.7), [(3, 4)], {}),
    ("remainder", lambda lib, x: lib.remainder(x, 0.7), [(3, 4)], {}),
    # reductions
    ("sum", lambda lib, x: x.sum(), [(3, 4)], {}),
    ("sum_dim", lambda lib, x: x.sum(dim=-1, keepdim=True), [(3, 4)], {}),
    ("mean", lambda lib, x: x.mean(0), [(3, 4)], {}),
    ("prod", lambda lib, x: x.prod(1), [(3, 4)], {}),
    ("var", lambda lib, x: x.var(1), [(3, 4)], {}),
    ("std", lambda lib, x: x.std(), [(3, 4)], {}),
    ("amax", lambda lib, x: x.amax(1), [(3, 4)], {}),
    ("max_dim", lambda lib, x: x.max(1), [(3, 4)], {}),
    ("min", lambda lib, x: x.min(), [(3, 4)], {}),
    ("logsumexp", lambda lib, x: x.logsumexp(1), [(3, 4)], {}),
    ("norm", lambda lib, x: x.norm(), [(3, 4)], {}),
    ("norm_dim", lambda lib, x: lib.linalg.vector_norm(x, 3, dim=1), [(3, 4)], {}),
    ("cumsum", lambda lib, x: x.cumsum(1), [(3, 4)], {}),
    ("cumprod", lambda lib, x: x.cumprod(1), [(3, 4)], {}),
    ("softmax", lambda lib, x: x.softmax(-1), [(3, 4)], {}),
    ("log_softmax", lambda lib, x: x.log_softmax(0), [(3, 4)], {}),
    ("sort", lambda lib, x: x.sort(1), [(3, 4)], {}),
    ("topk", lambda lib, x: x.topk(2), [(3, 4)], {}),
    # matmul family
    ("matmul", lambda lib, a, b: a @ b, [(3, 4), (4, 5)], {}),
    ("matmul_batched", lambda lib, a, b: a @ b, [(2, 3, 4), (4, 5)], {}),
    ("matvec", lambda lib, a, b: a @ b, [(3, 4), (4,)], {}),
    ("mm", lambda lib, a, b: lib.mm(a, b), [(3, 4), (4, 5)], {}),
    ("bmm", lambda lib, a, b: lib.bmm(a, b), [(2, 3, 4), (2, 4, 5)], {}),
    ("addmm", lambda lib, c, a, b: lib.addmm(c, a, b, beta=0.5, alpha=2.0),
     [(5,), (3, 4), (4, 5)], {}),
    ("linear", lambda lib, x, w, b: lib.nn.functional.linear(x, w, b), [(2, 3, 4), (5, 4), (5,)],
     {}),
    ("linear_nobias", lambda lib, x, w: lib.nn.functional.linear(x, w), [(3, 4), (5, 4)], {}),
    ("einsum", lambda lib, a, b: lib.einsum("ij,jk->ik", a, b), [(3, 4), (4, 5)], {}),
    ("outer", lambda lib, a, b: lib.outer(a, b), [(3,), (4,)], {}),
    # shape and indexing
    ("view", lambda lib, x: x.view(4, 3), [(3, 4)], {}),
    ("reshape_t", lambda lib, x: x.t().reshape(12), [(3, 4)], {}),
    ("transpose", lambda lib, x: x.transpose(0, 1) * 2, [(3, 4)], {}),
    ("permute", lambda lib, x: x.permute(2, 0, 1), [(2, 3, 4)], {}),
    ("expand", lambda lib, x: x.expand(3, 4) + 0, [(1, 4)], {}),
    ("index", lambda lib, x: x[1:, ::2], [(3, 4)], {}),
    ("select", lambda lib, x: x[1], [(3, 4)], {}),
    ("index_tensor", lambda lib, x: x[lib.tensor([2, 0, 2])], [(3, 4)], {}),
    ("gather", lambda lib, x: x.gather(1, lib.tensor([[0, 1], [2, 2], [3, 0]])), [(3, 4)], {}),
    ("cat", lambda lib, x, y: lib.cat([x, y], 1), [(3, 4), (3, 2)], {}),
    ("stack", lambda lib, x, y: lib.stack([x, y]), [(3, 4), (3, 4)], {}),
    ("split", lambda lib, x: x.split(2, 1), [(3, 4)], {}),
    ("chunk", lambda lib, x: x.chunk(2, 0), [(4, 3)], {}),
    ("unbind", lambda lib, x: x.unbind(1), [(3, 4)], {}),
    ("squeeze", lambda lib, x: x.unsqueeze(0).squeeze(0), [(3, 4)], {}),
    ("flip", lambda lib, x: x.flip(0), [(3, 4)], {}),
    ("roll", lambda lib, x: x.roll(1, 1), [(3, 4)], {}),
    ("repeat", lambda lib, x: x.repeat(2, 1), [(3, 4)], {}),
    ("tril", lambda lib, x: x.tril(), [(4, 4)], {}),
    ("diagonal", lambda lib, x: x.diagonal(), [(4, 4)], {}),
    ("pad", lambda lib, x: lib.nn.functional.pad(x, (1, 2)), [(3, 4)], {}),
    ("clone", lambda lib, x: x.clone(), [(3, 4)], {}),
    ("to_double", lambda lib, x: x.double(), [(3, 4)], {}),
    # nn.functional: activations, conv, pooling, norms, losses
    *[(name, (lambda n: lambda lib, x: getattr(lib.nn.functional, n)(x))(name), [(3, 4)], {})
      for name in ["gelu", "silu", "elu", "selu", "celu", "leaky_relu", "softplus", "mish",
                   "hardtanh", "hardswish", "hardsigmoid", "logsigmoid", "tanhshrink",
                   "softsign", "relu6"]],
    ("conv1d", lambda lib, x, w, b: lib.nn.functional.conv1d(x, w, b, padding=1),
     [(2, 3, 7), (4, 3, 3), (4,)], {}),
    ("conv2d", lambda lib, x, w, b: lib.nn.functional.conv2d(x, w, b, stride=2, padding=1),
     [(2, 3, 6, 6), (4, 3, 3, 3), (4,)], {}),
    ("conv2d_groups", lambda lib, x, w: lib.nn.functional.conv2d(x, w, groups=2),
     [(1, 4, 5, 5), (4, 2, 3, 3)], {}),
    ("conv_transpose2d", lambda lib, x, w: lib.nn.functional.conv_transpose2d(x, w, stride=2),
     [(1, 3, 4, 4), (3, 2, 3, 3)], {}),
    ("max_pool2d", lambda lib, x: lib.nn.functional.max_pool2d(x, 2), [(2, 3, 4, 4)], {}),
    ("avg_pool2d", lambda lib, x: lib.nn.functional.avg_pool2d(x, 2), [(2, 3, 4, 4)], {}),
    ("adaptive_avg_pool2d", lambda lib, x: lib.nn.functional.adaptive_avg_pool2d(x, 1),
     [(2, 3, 4, 4)], {}),
    ("batch_norm", lambda lib, x, w, b: lib.nn.functional.batch_norm(
        x, None, None, w, b, training=True), [(4, 3, 2), (3,), (3,)], {}),
    ("batch_norm_eval", lambda lib, x, m, v, w, b: lib.nn.functional.batch_norm(
        x, m, v.abs() + 0.5, w, b), [(4, 3), (3,), (3,), (3,), (3,)], {"tangent_inputs": [0, 3, 4]}),
    ("layer_norm", lambda lib, x, w, b: lib.nn.functional.layer_norm(x, (4,), w, b),
     [(3, 4), (4,), (4,)], {}),
    ("group_norm", lambda lib, x, w, b: lib.nn.functional.group_norm(x, 2, w, b),
     [(2, 4, 3), (4,), (4,)], {}),
    ("rms_norm", lambda lib, x, w: lib.nn.functional.rms_norm(x, (4,), w), [(3, 4), (4,)], {}),
    ("instance_norm", lambda lib, x: lib.nn.functional.instance_norm(x), [(2, 3, 5)], {}),
    ("normalize", lambda lib, x: lib.nn.functional.normalize(x, dim=1), [(3, 4)], {}),
    ("mse_loss", lambda lib, x, y: lib.nn.functional.mse_loss(x, y), [(3, 4), (3, 4)], {}),
    ("l1_loss", lambda lib, x, y: lib.nn.functional.l1_loss(x, y), [(3, 4), (3, 4)], {}),
    ("smooth_l1_loss", lambda lib, x, y: lib.nn.functional.smooth_l1_loss(x, y), [(3, 4), (3, 4)],
     {}),
    ("huber_loss", lambda lib, x, y: lib.nn.functional.huber_loss(x, y, reduction="none"),
     [(3, 4), (3, 4)], {}),
    ("cross_entropy", lambda lib, x: lib.nn.functional.cross_entropy(x, lib.tensor([1, 0, 3])),
     [(3, 4)], {}),
    ("cross_entropy_smooth", lambda lib, x: lib.nn.functional.cross_entropy(
        x, lib.tensor([1, 0, 3]), label_smoothing=0.1, reduction="sum"), [(3, 4)], {}),
    ("cross_entropy_probs", lambda lib, x, p: lib.nn.functional.cross_entropy(x, p.softmax(1)),
     [(3, 4), (3, 4)], {}),
    ("nll_loss", lambda lib, x: lib.nn.functional.nll_loss(x, lib.tensor([1, 0, 3]),
                                                           reduction="none"), [(3, 4)], {}),
    ("bce", lambda lib, x, y: lib.nn.functional.binary_cross_entropy(x.sigmoid(), y.sigmoid()),
     [(3, 4), (3, 4)], {}),
    ("bce_logits", lambda lib, x, y: lib.nn.functional.binary_cross_entropy_with_logits(
        x, y.sigmoid()), [(3, 4), (3, 4)], {}),
    ("kl_div", lambda lib, x, y: lib.nn.functional.kl_div(x.log_softmax(1), y.softmax(1),
                                                          reduction="batchmean"),
     [(3, 4), (3, 4)], {}),
    ("embedding", lambda lib, w: lib.nn.functional.embedding(lib.tensor([[0, 2], [1, 1]]), w),
     [(3, 4)], {}),
    ("attention", lambda lib, q, k, v: lib.nn.functional.scaled_dot_product_attention(q, k, v),
     [(2, 3, 4), (2, 5, 4), (2, 5, 4)], {}),
    # linear algebra
    ("inv", lambda lib, x: lib.linalg.inv(x + 3 * lib.eye(3)), [(3, 3)], {}),
    ("det", lambda lib, x: lib.linalg.det(x), [(3, 3)], {}),
    ("solve", lambda lib, a, b: lib.linalg.solve(a + 3 * lib.eye(3), b), [(3, 3), (3, 2)], {}),
    ("cholesky", lambda lib, x: lib.linalg.cholesky(x @ x.mT + lib.eye(3)), [(3, 3)], {}),
    ("trace", lambda lib, x: x.trace(), [(3, 3)], {}),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("name,fn,specs,options", OPS, ids=[case[0] for case in OPS])
def test_tangents_match_torch(name, fn, specs, options, dtype):
    check_jvp(fn, *specs, dtype=dtype, **options)
