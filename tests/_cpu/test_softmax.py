"""The `softmax` kernel family (ember/_cpu/softmax.py and its numba twin): softmax,
log_softmax and cross-entropy with class indices through torch.nn.functional, against
torch in both kernel modes (values, gradients, double backward), and the two
implementations against each other on the same arrays."""
import numpy as np
import pytest
import torch

import ember
from ember._cpu import softmax as reference
from oracle import check

DTYPES = ["float32", "float64"]
R = np.random.default_rng(5)


def along(name, dim):
    return lambda lib, x: getattr(lib.nn.functional, name)(x, dim=dim)


SOFTMAXES = ["softmax", "log_softmax", "softmin"]

# Rows with -inf, large and tiny logits; one row all -inf (NaN in torch too).
SPECIAL = np.array([[0.0, -np.inf, 3.0, -2.0, 1e3, -1e3, 0.5, 7.0, -7.0, 2.0, 1.0],
                    [-np.inf] * 11,
                    [88.0, 89.0, -89.0, 90.0, 0.0, 0.0, -700.0, 700.0, 1.0, 2.0, 3.0],
                    [1e-30, -1e-30, 0.0, 1.0, -1.0, 0.25, 0.5, -0.5, 9.0, 10.0, 11.0]])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", SOFTMAXES)
@pytest.mark.parametrize("shape,dim", [((7, 67), -1), ((3, 4, 9), 2), ((2, 5, 3), 1),
                                       ((6, 5), 0), ((1, 1), -1), ((4, 1), -1)])
def test_values_and_gradients(kernels, name, shape, dim, dtype):
    check(along(name, dim), (R.standard_normal(shape) * 5).astype(dtype), dtype=dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", SOFTMAXES)
def test_infinite_and_extreme_logits(kernels, name, dtype):
    check(along(name, -1), SPECIAL.astype(dtype), dtype=dtype, grad=False)
    finite = SPECIAL[[0, 3]]        # torch's gradient of a -inf logit is 0 (or NaN) alike
    check(along(name, -1), finite.astype(dtype), dtype=dtype)


@pytest.mark.parametrize("name", SOFTMAXES)
def test_zero_dim_empty_non_contiguous_and_16_bit(kernels, name):
    check(along(name, 0), ())
    check(along(name, -1), (0, 5))
    check(along(name, 1), (4, 0))
    check(along(name, -1), (6, 9), non_contiguous=True)
    check(lambda lib, x: along(name, -1)(lib, x.t()), (9, 6))
    check(along(name, -1), (4, 6), dtype="float16")
    check(along(name, -1), (4, 6), dtype="bfloat16")


def test_nan_propagates(kernels):
    x = np.array([[1.0, np.nan, 2.0], [np.nan, 0.0, 1.0], [1.0, 2.0, 3.0]], np.float32)
    for name in SOFTMAXES:
        check(along(name, -1), x, grad=False)


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
def test_double_backward(kernels, name):
    x = R.standard_normal((3, 10))
    grads = []
    for lib in (torch, ember):
        t = lib.tensor(x, requires_grad=True)
        y = getattr(lib.nn.functional, name)(t * t, dim=-1)
        (first,) = lib.autograd.grad((y * lib.tensor(x)).sum(), t, create_graph=True)
        (second,) = lib.autograd.grad((first * first).sum(), t)
        grads.append((first.detach().numpy(), second.numpy()))
    for mine, theirs in zip(*grads[::-1]):
        np.testing.assert_allclose(mine, theirs, rtol=1e-10)


# ---------------------------------------------------------------- cross-entropy
def _cross_entropy(options, reduction, dtype, classes):
    weight = np.linspace(0.5, 2.0, classes).astype(dtype) if options.get("weight") else None
    kwargs = {k: v for k, v in options.items() if k != "weight"}

    def fn(lib, x, t):
        w = None if weight is None else lib.tensor(weight)
        return lib.nn.functional.cross_entropy(x, t, weight=w, reduction=reduction, **kwargs)
    return fn


OPTIONS = [{}, {"weight": True}, {"ignore_index": 2}, {"label_smoothing": 0.3},
           {"weight": True, "ignore_index": 0, "label_smoothing": 0.1}]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("options", OPTIONS)
@pytest.mark.parametrize("shape", [(37, 65), (5, 3), (4, 9, 2)])
def test_cross_entropy(kernels, shape, options, reduction, dtype):
    target = R.integers(0, shape[1], (shape[0],) + shape[2:])
    x = (R.standard_normal(shape) * 4).astype(dtype)
    check(_cross_entropy(options, reduction, dtype, shape[1]), x, target, dtype=dtype)


@pytest.mark.parametrize("options", OPTIONS)
def test_cross_entropy_extreme_logits(kernels, options):
    x = SPECIAL[[0, 2, 3]].astype(np.float32)
    check(_cross_entropy(options, "none", "float32", 11), x, np.array([3, 1, 8]))
    check(_cross_entropy(options, "mean", "float32", 11), x, np.array([2, 7, 9]))


def test_cross_entropy_everything_ignored_and_non_contiguous(kernels):
    target = np.full(6, -1)
    check(lambda lib, x, t: lib.nn.functional.cross_entropy(x, t, ignore_index=-1), (6, 4),
          target)
    check(lambda lib, x, t: lib.nn.functional.cross_entropy(x, t), (6, 4), np.arange(6) % 4,
          non_contiguous=True)
    check(lambda lib, x, t: lib.nn.functional.cross_entropy(x.t(), t, label_smoothing=0.2),
          (9, 5), np.arange(5) % 9)


def test_cross_entropy_16_bit(kernels):
    for dtype in ("bfloat16", "float16"):
        check(lambda lib, x, t: lib.nn.functional.cross_entropy(
            x.to(getattr(lib, dtype)), t, label_smoothing=0.1, reduction="none"),
            (6, 5), np.arange(6) % 5, atol=1e-2, rtol=1e-2)


def test_cross_entropy_double_backward(kernels):
    x = R.standard_normal((5, 7))
    t = R.integers(0, 7, 5)
    grads = []
    for lib in (torch, ember):
        xt = lib.tensor(x, requires_grad=True)
        loss = lib.nn.functional.cross_entropy(xt * xt, lib.tensor(t), label_smoothing=0.2)
        (first,) = lib.autograd.grad(loss, xt, create_graph=True)
        (second,) = lib.autograd.grad((first * first).sum(), xt)
        grads.append((first.detach().numpy(), second.numpy()))
    for mine, theirs in zip(*grads[::-1]):
        np.testing.assert_allclose(mine, theirs, rtol=1e-10, atol=1e-14)


# ---------------------------------------------------------------- the kernels themselves
def _compiled():
    return pytest.importorskip("ember._cpu.numba.softmax")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(5, 1), (3, 7), (4, 64), (2, 3, 131)])
def test_numba_softmaxes_agree_with_the_reference(dtype, shape):
    compiled = _compiled()
    x = (R.standard_normal(shape) * 6).astype(dtype)
    g = R.standard_normal(shape).astype(dtype)
    tol = 3e-6 if dtype == "float32" else 1e-14
    for name in ("softmax", "log_softmax"):
        y = getattr(reference, name)(x, -1)
        np.testing.assert_allclose(getattr(compiled, name)(x, -1), y, rtol=tol, atol=tol)
        backward = name + "_backward"
        np.testing.assert_allclose(getattr(compiled, backward)(y, g, -1),
                                   getattr(reference, backward)(y, g, -1), rtol=tol, atol=tol)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("label_smoothing", [0.0, 0.25])
@pytest.mark.parametrize("gradient", [False, True])
def test_numba_cross_entropy_agrees_with_the_reference(dtype, weighted, label_smoothing,
                                                       gradient):
    compiled = _compiled()
    x = (R.standard_normal((40, 13)) * 5).astype(dtype)
    x[3, 4] = -np.inf
    x[5] = -np.inf                      # no finite maximum: shifted by 0, as the reference
    target = R.integers(0, 13, 40)
    kept = R.random(40) > 0.2
    class_weight = np.linspace(0.5, 2, 13).astype(dtype) if weighted else None
    target_weight = np.where(kept, 1 if class_weight is None else class_weight[target], 0)
    args = (x, target, target_weight.astype(dtype), kept, class_weight, label_smoothing,
            gradient)
    tol = 3e-6 if dtype == "float32" else 1e-13
    for mine, theirs in zip(compiled.cross_entropy(*args), reference.cross_entropy(*args)):
        if theirs is None:
            assert mine is None
        else:
            np.testing.assert_allclose(mine, theirs, rtol=tol, atol=tol)


def test_numba_functions_fall_back_to_the_reference():
    """float16, other axes and (N, C, d) cross-entropy run the NumPy reference."""
    compiled = _compiled()
    x16 = R.standard_normal((4, 9)).astype(np.float16)
    np.testing.assert_array_equal(compiled.softmax(x16, -1), reference.softmax(x16, -1))
    x = R.standard_normal((4, 9, 3)).astype(np.float32)
    np.testing.assert_array_equal(compiled.log_softmax(x, 1), reference.log_softmax(x, 1))
    y = reference.softmax(x, 1)
    np.testing.assert_array_equal(compiled.softmax_backward(y, x, 1),
                                  reference.softmax_backward(y, x, 1))
    target = R.integers(0, 9, (4, 3))
    weights = np.ones((4, 3), np.float32)
    args = (x, target, weights, weights > 0, None, 0.1, True)
    for mine, theirs in zip(compiled.cross_entropy(*args), reference.cross_entropy(*args)):
        np.testing.assert_array_equal(mine, theirs)


@pytest.mark.parametrize("dtype,low,ulps", [("float32", -87.3, 2), ("float64", -708.3, 2)])
def test_shifted_exp_is_within_two_ulps(dtype, low, ulps):
    numba = pytest.importorskip("numba")
    from ember._cpu.numba._exp import shifted_exp

    @numba.njit
    def exps(x, out):
        for i in range(x.size):
            out[i] = shifted_exp(x[i])

    x = np.concatenate([np.linspace(low, 0, 100001), -R.random(1000) * 1e-6, [0.0, -0.0]])
    x = x.astype(dtype)
    out = np.empty_like(x)
    exps(x, out)
    exact = np.exp(x.astype(np.longdouble))
    error = np.abs(out - exact) / exact / np.finfo(dtype).eps
    assert error.max() <= ulps
    special = np.array([-np.inf, np.nan, low - 1, -1e30], dtype)
    exps(special, out[:4])
    np.testing.assert_array_equal(out[:4], [0, np.nan, 0, 0])
