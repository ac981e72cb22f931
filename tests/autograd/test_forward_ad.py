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
    ("cross_entropy_ignore", lambda lib, x: lib.nn.functional.cross_entropy(
        x, lib.tensor([1, 0, 3]), ignore_index=0), [(3, 4)], {}),
    ("cross_entropy_none", lambda lib, x: lib.nn.functional.cross_entropy(
        x, lib.tensor([1, 0, 3]), reduction="none"), [(3, 4)], {}),
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


NATIVE = ["exp", "tanh", "log", "add_alpha", "sub", "mul", "div", "where", "sum_dim", "mean",
          "softmax", "log_softmax", "matmul_batched", "linear", "conv2d", "layer_norm",
          "batch_norm", "cross_entropy", "cross_entropy_ignore", "cross_entropy_none"]


NATIVE_CASES = [case for case in OPS if case[0] in NATIVE]


@pytest.mark.parametrize("name,fn,specs,options", NATIVE_CASES,
                         ids=[case[0] for case in NATIVE_CASES])
def test_the_generic_rule_where_native_rules_exist(name, fn, specs, options, monkeypatch):
    """The double-vjp rule alone gives torch's tangents for the ops with native rules too."""
    from ember.autograd._forward import rules
    assert rules.RULES                              # the native rules are registered
    monkeypatch.setattr(rules, "RULES", {})
    check_jvp(fn, *specs, dtype="float64", **options)


def test_tangents_of_non_contiguous_inputs():
    check_jvp(lambda lib, x, y: (x * y).sin() @ x.mT, (3, 4), (3, 4), non_contiguous=True)


# ------------------------------------------------------------------ the dual-level API
def _dual(lib, x, t, **kwargs):
    return lib.autograd.forward_ad.make_dual(x, t, **kwargs)


def test_make_dual_outside_a_level_raises():
    check_error(lambda lib: _dual(lib, lib.zeros(3), lib.ones(3)), RuntimeError,
                "^Trying to create a dual Tensor for forward AD but no level exists")


@pytest.mark.parametrize("make,error,match", [
    (lambda lib: _dual(lib, lib.zeros(3), lib.ones(2)), RuntimeError,
     r"^Trying to set a forward gradient that has a different size .* Tensor is of size \[3\] "
     r"while the given forward gradient is of size \[2\]"),
    (lambda lib: _dual(lib, lib.arange(3), lib.ones(3)), ValueError,
     "^Expected primal to be floating point or complex, but got: torch.int64"),
    (lambda lib: _dual(lib, lib.zeros(3), lib.arange(3)), ValueError,
     "^Expected tangent to be floating point or complex, but got: torch.int64"),
    (lambda lib: _dual(lib, lib.zeros(3), lib.ones(3), level=3), RuntimeError,
     "^Invalid level given to _make_dual"),
    (lambda lib: _dual(lib, lib.zeros(3), lib.ones(3), level=0.5), TypeError,
     "argument 'level' must be int, not float"),
    (lambda lib: _dual(lib, _dual(lib, lib.zeros(3), lib.ones(3)), lib.ones(3)), RuntimeError,
     "^Making a dual Tensor based on a Tensor that already has a forward gradient at the "
     "same level 0 is not supported"),
    (lambda lib: lib.autograd.forward_ad.dual_level().__enter__(), RuntimeError,
     "^Nested forward mode AD is not supported at the moment"),
    (lambda lib: lib.autograd.forward_ad.exit_dual_level(level=1), RuntimeError,
     "^Trying to exit a forward AD level that was not the last one"),
])
def test_bad_calls_inside_a_level_raise_torchs_errors(make, error, match):
    def inside(lib):
        with lib.autograd.forward_ad.dual_level():
            make(lib)
    check_error(inside, error, match)


def test_exit_without_a_level_raises():
    check_error(lambda lib: lib.autograd.forward_ad.exit_dual_level(), RuntimeError,
                "^Dual level must be a positive number")


def test_levels_number_from_zero_and_tangents_go_on_exit():
    fwad = ember.autograd.forward_ad
    x, t = ember.randn(3), ember.randn(3)
    with fwad.dual_level() as level:
        assert level == 0
        dual = fwad.make_dual(x, t)
        unpacked = fwad.unpack_dual(dual)
        assert isinstance(unpacked, fwad.UnpackedDualTensor)
        assert unpacked.tangent is t
        assert fwad.unpack_dual(x).tangent is None       # x itself is not dual
    assert fwad.unpack_dual(dual) == (dual, None)
    assert fwad.enter_dual_level() == 0                  # the level can be opened again
    fwad.exit_dual_level()


def test_make_dual_and_unpack_dual_give_views():
    def run(lib):
        fwad = lib.autograd.forward_ad
        x, t = lib.ones(2, 3), lib.ones(2, 3)
        with fwad.dual_level():
            dual = fwad.make_dual(x, t)
            primal = fwad.unpack_dual(dual).primal
            return (dual._base is x, primal._base is x, fwad.unpack_dual(primal).tangent,
                    type(dual.grad_fn).__name__ if x.requires_grad else None)
    same(run)


def test_a_tangent_laid_out_unlike_the_primal_is_copied_into_its_layout():
    def run(lib):
        fwad = lib.autograd.forward_ad
        x = lib.randn(4, 3).t()
        with fwad.dual_level():
            tangent = fwad.unpack_dual(fwad.make_dual(x, lib.randn(3, 4))).tangent
            return tangent.stride()
    same(run)


def test_a_tangent_of_another_dtype_is_kept():
    def run(lib):
        fwad = lib.autograd.forward_ad
        with fwad.dual_level():
            return fwad.unpack_dual(fwad.make_dual(lib.ones(3), lib.ones(3).double())).tangent
    same(run)


def test_dual_level_decorates_a_function():
    fwad = ember.autograd.forward_ad

    @fwad.dual_level()
    def tangent_of_square(x, t):
        return fwad.unpack_dual(fwad.make_dual(x, t) ** 2).tangent

    x = ember.tensor([1.0, 2.0])
    assert tangent_of_square(x, ember.ones(2)).tolist() == [2.0, 4.0]


# ------------------------------------------------------------------ which outputs have tangents
def _tangent_of(lib, make_output):
    fwad = lib.autograd.forward_ad
    x = lib.from_numpy(np.arange(12.0).reshape(3, 4))
    with fwad.dual_level():
        dual = fwad.make_dual(x, lib.ones(3, 4))
        return fwad.unpack_dual(make_output(lib, dual)).tangent


@pytest.mark.parametrize("make_output", [
    lambda lib, d: d.detach(), lambda lib, d: d.data, lambda lib, d: d.argmax(1),
    lambda lib, d: d > 3, lambda lib, d: lib.zeros_like(d), lambda lib, d: d.long(),
], ids=["detach", "data", "argmax", "comparison", "zeros_like", "long"])
def test_outputs_without_a_tangent(make_output):
    same(lambda lib: _tangent_of(lib, make_output))


def test_tangents_propagate_under_no_grad():
    def run(lib):
        with lib.no_grad():
            return _tangent_of(lib, lambda lib, d: (d * d).sum(0))
    same(run)


# ------------------------------------------------------------------ views and in-place ops
def test_the_tangent_of_a_view_is_the_view_of_the_tangent():
    def run(lib):
        fwad = lib.autograd.forward_ad
        x, t = lib.randn(3, 4), lib.randn(3, 4)
        with fwad.dual_level():
            dual = fwad.make_dual(x, t)
            views = [dual[0], dual.t(), dual.view(12), dual[:, 1:3], dual.unsqueeze(0)]
            return [fwad.unpack_dual(v).tangent._base is t for v in views]
    same(run)


INPLACE = [
    ("mul_", lambda lib, d, y: d.mul_(3)),
    ("add_dual_into_plain", lambda lib, d, y: y.add_(d)),
    ("view_mul_", lambda lib, d, y: (d[1].mul_(2), d)[1]),
    ("dual_into_view_of_plain", lambda lib, d, y: (y[0].add_(d[2]), y)[1]),
    ("setitem", lambda lib, d, y: y.__setitem__(1, d[0] * 2) or y),
    ("setitem_advanced", lambda lib, d, y: y.__setitem__(lib.tensor([0, 2]), d[:2]) or y),
    ("copy_plain", lambda lib, d, y: d.copy_(y)),
    ("copy_dual", lambda lib, d, y: y.copy_(d)),
    ("zero_", lambda lib, d, y: d.zero_()),
    ("sin_", lambda lib, d, y: d.sin_()),
    ("clamp_", lambda lib, d, y: d.clamp_(-0.5, 0.5)),
]


@pytest.mark.parametrize("requires_grad", [False, True])
@pytest.mark.parametrize("name,op", INPLACE, ids=[case[0] for case in INPLACE])
def test_inplace_ops_update_tangents(name, op, requires_grad):
    def run(lib):
        fwad = lib.autograd.forward_ad
        lib.manual_seed(0)
        x = lib.linspace(-1, 1, 12).reshape(3, 4).requires_grad_(requires_grad)
        t = lib.linspace(2, 3, 12).reshape(3, 4)
        with fwad.dual_level():
            dual = fwad.make_dual(x, t) * 1.0       # a non-leaf, so in-place ops are allowed
            plain = lib.zeros(3, 4)
            result = op(lib, dual, plain)
            return [fwad.unpack_dual(o).tangent for o in (result, dual, plain)]
    same(run, atol=1e-6, rtol=1e-6)


# ------------------------------------------------------------------ custom Functions
def _custom_functions(lib):
    class MulWithJvp(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, y):
            ctx.save_for_forward(x, y)
            return x * y

        @staticmethod
        def jvp(ctx, x_t, y_t):
            x, y = ctx.saved_tensors
            return x_t * y + x * y_t

    class DoubleNoJvp(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, grad):
            return grad * 2

    return MulWithJvp, DoubleNoJvp


def test_custom_function_jvp():
    def run(lib):
        fwad = lib.autograd.forward_ad
        mul, _ = _custom_functions(lib)
        x, y = lib.from_numpy(np.arange(3.0)), lib.from_numpy(np.arange(3.0) + 5)
        with fwad.dual_level():
            both = mul.apply(fwad.make_dual(x, lib.ones(3)), fwad.make_dual(y, lib.ones(3) * 2))
            one = mul.apply(fwad.make_dual(x, lib.ones(3)), y)    # y's tangent: zeros
            return fwad.unpack_dual(both).tangent, fwad.unpack_dual(one).tangent
    same(run)


def test_custom_function_without_jvp_raises():
    def run(lib):
        fwad = lib.autograd.forward_ad
        _, double = _custom_functions(lib)
        with fwad.dual_level():
            double.apply(fwad.make_dual(lib.ones(3), lib.ones(3)))
    check_error(run, NotImplementedError, "^You must implement the jvp function for custom "
                                          "autograd.Function to use it with forward mode AD")


# ------------------------------------------------------------------ with reverse mode
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_backward_through_primal_and_tangent(dtype):
    """Reverse over forward: the tangent is differentiable with respect to the primal and
    the tangent, and the primal's graph is the ordinary one."""
    def run(lib):
        fwad = lib.autograd.forward_ad
        x = lib.from_numpy(np.linspace(-1, 1, 6, dtype=dtype).reshape(2, 3)).requires_grad_()
        t = lib.from_numpy(np.linspace(1, 2, 6, dtype=dtype).reshape(2, 3)).requires_grad_()
        w = lib.from_numpy(np.linspace(0, 1, 12, dtype=dtype).reshape(3, 4)).requires_grad_()
        with fwad.dual_level():
            y = lib.nn.functional.gelu(fwad.make_dual(x, t) @ w).sin().sum(0)
            primal, tangent = fwad.unpack_dual(y)
            (primal.sum() + (tangent ** 2).sum()).backward()
        return [primal, tangent, x.grad, t.grad, w.grad]
    same(run, atol=1e-5 if dtype == "float32" else 1e-12, rtol=1e-5)


def test_ops_seen_by_the_profiler_inside_a_level():
    """A level delegates to a recorder installed before it: the profiler still sees ops."""
    x, t = ember.randn(3), ember.randn(3)
    with ember.profiler.profile() as prof:
        with ember.autograd.forward_ad.dual_level():
            y = ember.autograd.forward_ad.make_dual(x, t).exp()
            tangent = ember.autograd.forward_ad.unpack_dual(y).tangent
    assert "aten::exp" in {e.key for e in prof.key_averages()}
    np.testing.assert_allclose(tangent.numpy(), (x.exp() * t).numpy(), rtol=1e-6)


def test_levels_are_per_thread():
    import threading
    seen = []
    with ember.autograd.forward_ad.dual_level():
        thread = threading.Thread(target=lambda: seen.append(
            ember.autograd.forward_ad.unpack_dual(ember.ones(1)).tangent is None and
            ember._modes.current().recorder is None))
        thread.start()
        thread.join()
    assert seen == [True]
