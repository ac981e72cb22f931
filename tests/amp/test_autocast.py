"""autocast: ember's per-op casting against torch's CPU autocast.

Each case runs on torch and ember under `autocast("cpu", dtype=bfloat16)`, with float32,
float16 and float64 inputs: float32 inputs separate the lower-precision list from the rest,
float16 inputs separate the float32 list from the ops that run as their inputs are, float64
inputs are never cast. Output dtypes, values (bf16 tolerance) and input gradients are
compared through the oracle.
"""
import warnings

import numpy as np
import pytest
import torch

import ember
from oracle import check, check_error

TOL = dict(atol=3e-2, rtol=3e-2)
T = np.array([1, 0, 3, 7])                     # class targets for (4, 8) logits
SIGNS = np.array([1.0, -1.0, 1.0, -1.0], dtype=np.float32)


def under_autocast(fn):
    def run(lib, *tensors):
        with lib.autocast("cpu", dtype=lib.bfloat16):
            return fn(lib, *tensors)
    return run


def f(lib):
    return lib.nn.functional


# name -> (fn(lib, *tensors), input specs, check gradients: True/False or the input indices)
CASES = {
    "matmul": (lambda lib, x, w: lib.matmul(x, w), [(4, 8), (8, 5)], True),
    "matmul_operator": (lambda lib, x, w: x @ w, [(4, 8), (8, 5)], True),
    "mm": (lambda lib, x, w: lib.mm(x, w), [(4, 8), (8, 5)], True),
    "bmm": (lambda lib, x, w: lib.bmm(x, w), [(2, 4, 8), (2, 8, 5)], True),
    "addmm": (lambda lib, b, x, w: lib.addmm(b, x, w), [(5,), (4, 8), (8, 5)], True),
    "baddbmm": (lambda lib, b, x, w: lib.baddbmm(b, x, w), [(2, 4, 5), (2, 4, 8), (2, 8, 5)],
                True),
    "addbmm": (lambda lib, b, x, w: lib.addbmm(b, x, w), [(4, 5), (2, 4, 8), (2, 8, 5)], True),
    "einsum": (lambda lib, x, w: lib.einsum("ij,jk->ik", x, w), [(4, 8), (8, 5)], True),
    "tensordot": (lambda lib, x, w: lib.tensordot(x, w, 1), [(4, 8), (8, 5)], True),
    "linear": (lambda lib, x, w, b: f(lib).linear(x, w, b), [(4, 8), (5, 8), (5,)], True),
    "linear_3d": (lambda lib, x, w: f(lib).linear(x, w), [(2, 3, 8), (5, 8)], True),
    "conv1d": (lambda lib, x, w: f(lib).conv1d(x, w), [(2, 3, 9), (4, 3, 3)], True),
    "conv2d": (lambda lib, x, w, b: f(lib).conv2d(x, w, b, padding=1),
               [(2, 3, 6, 6), (4, 3, 3, 3), (4,)], True),
    "conv3d": (lambda lib, x, w: f(lib).conv3d(x, w), [(1, 2, 4, 4, 4), (3, 2, 2, 2, 2)], True),
    "conv_transpose1d": (lambda lib, x, w: f(lib).conv_transpose1d(x, w),
                         [(2, 3, 9), (3, 4, 3)], True),
    "conv_transpose2d": (lambda lib, x, w: f(lib).conv_transpose2d(x, w, stride=2),
                         [(2, 3, 5, 5), (3, 2, 3, 3)], True),
    "conv_transpose3d": (lambda lib, x, w: f(lib).conv_transpose3d(x, w),
                         [(1, 2, 3, 3, 3), (2, 2, 2, 2, 2)], True),
    "prelu": (lambda lib, x, w: f(lib).prelu(x, w), [(4, 3), (3,)], True),
    # ops that are on no list: they run in their inputs' dtype
    "dot": (lambda lib, x, y: lib.dot(x, y), [(8,), (8,)], True),
    "mv": (lambda lib, w, v: lib.mv(w, v), [(5, 8), (8,)], True),
    "outer": (lambda lib, x, y: lib.outer(x, y), [(4,), (5,)], True),
    "addmv": (lambda lib, b, w, v: lib.addmv(b, w, v), [(5,), (5, 8), (8,)], True),
    "bilinear": (lambda lib, x, y, w: f(lib).bilinear(x, y, w), [(4, 3), (4, 5), (2, 3, 5)],
                 False),
    "softmax": (lambda lib, x: f(lib).softmax(x, -1), [(4, 8)], True),
    "log_softmax": (lambda lib, x: f(lib).log_softmax(x, -1), [(4, 8)], True),
    "relu": (lambda lib, x: f(lib).relu(x), [(4, 8)], True),
    "layer_norm": (lambda lib, x: f(lib).layer_norm(x, (8,)), [(4, 8)], True),
    "sum": (lambda lib, x: x.sum(), [(4, 8)], True),
    "mean": (lambda lib, x: x.mean(-1), [(4, 8)], True),
    "exp": (lambda lib, x: lib.exp(x), [(4, 8)], True),
    "add": (lambda lib, x, y: x + y, [(4, 8), (4, 8)], True),
    "max_pool2d": (lambda lib, x: f(lib).max_pool2d(x, 2), [(2, 3, 4, 4)], True),
    "avg_pool2d": (lambda lib, x: f(lib).avg_pool2d(x, 2), [(2, 3, 4, 4)], True),
    "pad_constant": (lambda lib, x: f(lib).pad(x, (1, 1)), [(2, 3, 4, 4)], True),
    # the float32 list
    "prod": (lambda lib, x: lib.prod(x, -1), [(4, 3)], True),
    "cdist": (lambda lib, x, y: lib.cdist(x, y), [(4, 3), (5, 3)], False),
    "trace": (lambda lib, x: lib.trace(x), [(4, 4)], True),
    "mse_loss": (lambda lib, x, y: f(lib).mse_loss(x, y), [(4, 8), (4, 8)], True),
    "l1_loss": (lambda lib, x, y: f(lib).l1_loss(x, y), [(4, 8), (4, 8)], True),
    "smooth_l1_loss": (lambda lib, x, y: f(lib).smooth_l1_loss(x, y), [(4, 8), (4, 8)], True),
    "huber_loss": (lambda lib, x, y: f(lib).huber_loss(x, y), [(4, 8), (4, 8)], True),
    "nll_loss": (lambda lib, x, t: f(lib).nll_loss(x, t), [(4, 8), T], True),
    "cross_entropy": (lambda lib, x, t: f(lib).cross_entropy(x, t), [(4, 8), T], True),
    "binary_cross_entropy": (lambda lib, x, y: f(lib).binary_cross_entropy(
        lib.sigmoid(x), lib.sigmoid(y)), [(4, 8), (4, 8)], True),
    "bce_with_logits": (lambda lib, x, y: f(lib).binary_cross_entropy_with_logits(
        x, lib.sigmoid(y)), [(4, 8), (4, 8)], True),
    "kl_div": (lambda lib, x, y: f(lib).kl_div(x, y.abs(), reduction="batchmean"),
               [(4, 8), (4, 8)], True),
    "poisson_nll_loss": (lambda lib, x, y: f(lib).poisson_nll_loss(x, y.abs()),
                         [(4, 8), (4, 8)], True),
    "soft_margin_loss": (lambda lib, x, y: f(lib).soft_margin_loss(x, y), [(4, 8), (4, 8)],
                         [0]),
    "hinge_embedding_loss": (lambda lib, x, y: f(lib).hinge_embedding_loss(x, y.sign()),
                             [(4, 8), (4, 8)], True),
    "margin_ranking_loss": (lambda lib, x, y, s: f(lib).margin_ranking_loss(x, y, s),
                            [(4,), (4,), SIGNS], True),
    "cosine_embedding_loss": (lambda lib, x, y, s: f(lib).cosine_embedding_loss(x, y, s),
                              [(4, 8), (4, 8), SIGNS], True),
    "triplet_margin_loss": (lambda lib, a, p, n: f(lib).triplet_margin_loss(a, p, n),
                            [(4, 8), (4, 8), (4, 8)], True),
    "multi_margin_loss": (lambda lib, x, t: f(lib).multi_margin_loss(x, t), [(4, 8), T], True),
    "max_pool3d": (lambda lib, x: f(lib).max_pool3d(x, 2), [(1, 2, 4, 4, 4)], True),
    "avg_pool3d": (lambda lib, x: f(lib).avg_pool3d(x, 2), [(1, 2, 4, 4, 4)], True),
    "adaptive_avg_pool3d": (lambda lib, x: f(lib).adaptive_avg_pool3d(x, 2),
                            [(1, 2, 4, 4, 4)], True),
    "pad_reflect": (lambda lib, x: f(lib).pad(x, (1, 1, 1, 1), mode="reflect"),
                    [(2, 3, 4, 4)], True),
    "pad_replicate": (lambda lib, x: f(lib).pad(x, (1, 1), mode="replicate"), [(2, 3, 4)],
                      True),
    "linalg_inv": (lambda lib, a: lib.linalg.inv(a @ a.mT + 4 * lib.eye(3)), [(3, 3)], False),
    "linalg_cholesky": (lambda lib, a: lib.linalg.cholesky(a @ a.mT + 4 * lib.eye(3)),
                        [(3, 3)], False),
    "linalg_solve": (lambda lib, a, b: lib.linalg.solve(a @ a.mT + 4 * lib.eye(3), b),
                     [(3, 3), (3, 2)], False),
    "linalg_eigvalsh": (lambda lib, a: lib.linalg.eigvalsh(a @ a.mT), [(3, 3)], False),
    "linalg_svdvals": (lambda lib, a: lib.linalg.svdvals(a), [(3, 3)], False),
    "linalg_vecdot": (lambda lib, x, y: lib.linalg.vecdot(x, y), [(4, 3), (4, 3)], True),
    # composites torch does not cast as a whole
    "gaussian_nll_loss": (lambda lib, x, y, v: f(lib).gaussian_nll_loss(x, y, v.abs() + 0.1),
                          [(4, 8), (4, 8), (4, 8)], True),
    # the promote list
    "cat": (lambda lib, x, y: lib.cat([x, y]), [(4, 8), (2, 8)], True),
    "stack": (lambda lib, x, y: lib.stack([x, y], 1), [(4, 8), (4, 8)], True),
}


@pytest.mark.parametrize("dtype", ["float32", "float16", "float64"])
@pytest.mark.parametrize("name", list(CASES))
def test_op_dtype_and_values_match_torch(name, dtype):
    fn, specs, grad = CASES[name]
    if dtype == "float64" and name in ("prelu", "bilinear"):
        pytest.skip("weight dtype mixed with float64 input errors in both")
    if dtype == "float16" and name in ("cat", "stack"):
        pytest.skip("float16 under bfloat16 autocast: see test_mixed_16_bit_cat_is_refused")
    grad_inputs = None if isinstance(grad, bool) else grad
    check(under_autocast(fn), *specs, dtype=dtype, grad=bool(grad), grad_inputs=grad_inputs,
          **TOL)


def test_bf16_result_feeding_float32_op_is_upcast():
    check(under_autocast(lambda lib, x, w, y: f(lib).mse_loss(x @ w, y)),
          (4, 8), (8, 5), (4, 5), **TOL)


def test_mixed_cat_promotes_to_widest():
    check(under_autocast(lambda lib, x, w, y: lib.cat([x @ w, y])), (4, 8), (8, 5), (3, 5),
          **TOL)


def test_mixed_16_bit_cat_is_refused():
    def fn(lib):
        with lib.autocast("cpu", dtype=lib.bfloat16):
            lib.cat([lib.ones(2, dtype=lib.float16), lib.ones(2, dtype=lib.bfloat16)])
    check_error(fn, RuntimeError, "Unexpected floating ScalarType")


def test_float16_autocast():
    def fn(lib, x, w):
        with lib.autocast("cpu", dtype=lib.float16):
            return f(lib).linear(x, w), lib.mm(x, w.t())
    check(fn, (4, 8), (5, 8), **TOL)


def test_small_cnn_training_step_matches_torch():
    def step(lib, x, w1, w2):
        with lib.autocast("cpu"):
            h = f(lib).max_pool2d(f(lib).relu(f(lib).conv2d(x, w1, padding=1)), 2)
            logits = f(lib).linear(h.flatten(1), w2)
            return f(lib).cross_entropy(logits, lib.tensor([1, 0, 3, 2]))
    check(step, (4, 1, 8, 8), (3, 1, 3, 3), (5, 48), **TOL)


# ---------------------------------------------------------------- state and nesting
def state(lib):
    return lib.is_autocast_enabled("cpu"), lib.get_autocast_dtype("cpu")


@pytest.mark.parametrize("lib", [torch, ember], ids=["torch", "ember"])
def test_nesting_and_disabled_regions(lib):
    x = lib.ones(2, 2)
    assert state(lib) == (False, lib.bfloat16)
    with lib.autocast("cpu"):
        assert state(lib) == (True, lib.bfloat16)
        assert (x @ x).dtype == lib.bfloat16
        with lib.autocast("cpu", enabled=False):
            assert state(lib) == (False, lib.bfloat16)
            assert (x @ x).dtype == lib.float32
        with lib.autocast("cpu", dtype=lib.float16):
            assert state(lib) == (True, lib.float16)
            assert (x @ x).dtype == lib.float16
        assert state(lib) == (True, lib.bfloat16)
    assert state(lib) == (False, lib.bfloat16)
    assert (x @ x).dtype == lib.float32
    assert lib.is_autocast_enabled() is False      # no device_type: the CUDA state


@pytest.mark.parametrize("lib", [torch, ember], ids=["torch", "ember"])
def test_state_restored_after_exception(lib):
    with pytest.raises(ValueError):
        with lib.autocast("cpu"):
            raise ValueError
    assert state(lib) == (False, lib.bfloat16)


@pytest.mark.parametrize("lib", [torch, ember], ids=["torch", "ember"])
def test_decorator(lib):
    @lib.autocast("cpu")
    def forward(a, b):
        assert lib.is_autocast_enabled("cpu")
        return a @ b
    assert forward(lib.ones(2, 2), lib.ones(2, 2)).dtype == lib.bfloat16
    assert not lib.is_autocast_enabled("cpu")


@pytest.mark.parametrize("lib", [torch, ember], ids=["torch", "ember"])
def test_unsupported_dtype_warns_and_disables(lib):
    with pytest.warns(UserWarning, match="In CPU autocast, but the target dtype is not "
                                         "supported. Disabling autocast."):
        region = lib.autocast("cpu", dtype=lib.float64)
    with region:
        assert not lib.is_autocast_enabled("cpu")


@pytest.mark.parametrize("lib", [torch, ember], ids=["torch", "ember"])
def test_cuda_autocast_warns_and_disables(lib):
    with pytest.warns(UserWarning, match="CUDA is not available"):
        region = lib.autocast("cuda")
    with region:
        assert not lib.is_autocast_enabled("cuda")
        assert (lib.ones(2, 2) @ lib.ones(2, 2)).dtype == lib.float32
    with pytest.warns(FutureWarning, match=r"torch.cuda.amp.autocast\(args...\)` is deprecated"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            lib.cuda.amp.autocast()


@pytest.mark.parametrize("lib", [torch, ember], ids=["torch", "ember"])
def test_cpu_amp_alias(lib):
    with pytest.warns(FutureWarning, match="torch.cpu.amp.autocast"):
        region = lib.cpu.amp.autocast()
    with region:
        assert state(lib) == (True, lib.bfloat16)


def test_errors_match_torch():
    check_error(lambda lib: lib.autocast("tpu9"), RuntimeError, "unsupported autocast|Invalid")
    check_error(lambda lib: lib.autocast(3), ValueError, "Expected `device_type` of type `str`")
    check_error(lambda lib: lib.autocast("cpu")(3), TypeError, r"autocast\(\)\(func\) requires")


def test_weight_cast_is_cached_within_a_region():
    w = ember.ones(3, 3, requires_grad=True)
    with ember.autocast("cpu"):
        a, b = ember.mm(w, w), ember.mm(w, w)
        assert a.grad_fn.next_functions[0][0] is b.grad_fn.next_functions[0][0]
        with ember.autocast("cpu", cache_enabled=False):
            c = ember.mm(w, w)
        assert c.grad_fn.next_functions[0][0] is not a.grad_fn.next_functions[0][0]
    assert not ember._modes.current().autocast_cache
