"""Reductions (ember/ops/reduction.py) against torch: values, dtypes, shapes, gradients, errors."""
import math
import warnings

import numpy as np
import pytest
import torch

import ember
from oracle import check, check_error, keeps_warnings_shown_once

DTYPES = ["float32", "float64"]
INF = math.inf

# (fn, input shape[, dtypes whose second derivatives are compared]): every case runs in
# float32 and float64, contiguous and not.
CASES = [
    (lambda lib, x: x.sum(), (3, 4)),
    (lambda lib, x: lib.sum(x, (0, -1), keepdim=True), (2, 3, 4)),
    (lambda lib, x: x.mean([-1]), (3, 4)),
    (lambda lib, x: x.prod(), (3, 4)),
    (lambda lib, x: lib.prod(x, -1, keepdim=True), (3, 4)),
    (lambda lib, x: x.prod(0, dtype=lib.float64), (3, 4)),
    (lambda lib, x: x.var(), (3, 4)),
    (lambda lib, x: x.var(1, keepdim=True), (3, 4)),
    (lambda lib, x: lib.var(x, (0, 2), correction=0), (2, 3, 4)),
    (lambda lib, x: lib.var(x, -1, False), (3, 4)),
    (lambda lib, x: lib.var(x, False), (3, 4)),
    (lambda lib, x: x.std(), (3, 4)),
    (lambda lib, x: x.std(dim=[0], unbiased=False), (3, 4)),
    (lambda lib, x: lib.std(x, -1, correction=2, keepdim=True), (3, 5)),
    (lambda lib, x: lib.std_mean(x, 1), (3, 4)),
    (lambda lib, x: lib.var_mean(x, (0, 1), keepdim=True, correction=0.5), (3, 4)),
    (lambda lib, x: x.max(), (3, 4)),
    (lambda lib, x: x.min(), (3, 4)),
    (lambda lib, x: lib.max(x, 1), (3, 4)),
    (lambda lib, x: lib.max(x, dim=-2, keepdim=True), (3, 4)),
    (lambda lib, x: x.min(0), (3, 4)),
    (lambda lib, x: tuple(x.min(-1, True)), (2, 3, 4)),
    (lambda lib, x: x.max(1).values * 2, (3, 4)),
    (lambda lib, x: x.amax(), (3, 4)),
    (lambda lib, x: x.amax((0, 2)), (2, 3, 4)),
    (lambda lib, x: lib.amin(x, -1, keepdim=True), (3, 4)),
    (lambda lib, x: lib.aminmax(x), (3, 4)),
    (lambda lib, x: lib.aminmax(x, dim=-1, keepdim=True), (3, 4)),
    (lambda lib, x: x.argmax(), (3, 4)),
    (lambda lib, x: x.argmin(1), (3, 4)),
    (lambda lib, x: lib.argmax(x, -1, keepdim=True), (2, 3, 4)),
    (lambda lib, x: lib.argmin(x, keepdim=True), (3, 4)),
    (lambda lib, x: lib.logsumexp(x, 1), (3, 4)),
    (lambda lib, x: x.logsumexp((0, -1), keepdim=True), (2, 3, 4)),
    (lambda lib, x: lib.logsumexp(x * 100, 0), (3, 4)),
    (lambda lib, x: lib.norm(x), (3, 4)),
    (lambda lib, x: lib.norm(x, 1, 1), (3, 4)),
    (lambda lib, x: lib.norm(x, INF, -1, keepdim=True), (3, 4)),
    (lambda lib, x: lib.norm(x, -INF, 0), (3, 4)),
    (lambda lib, x: lib.norm(x, 0), (3, 4)),
    (lambda lib, x: lib.norm(x, 3, (0, 1)), (3, 4)),
    (lambda lib, x: lib.norm(x, 0.5, 0), (3, 4)),
    (lambda lib, x: lib.norm(x, 1.5), (3, 4)),
    (lambda lib, x: lib.norm(x, "fro", (0, 1), keepdim=True), (2, 3, 4)),
    (lambda lib, x: lib.norm(x, 2, 1, dtype=lib.float64), (3, 4)),
    (lambda lib, x: x.norm(p=2, dim=0, keepdim=True), (3, 4)),
    # First order only: the nuclear norm goes through ember's svd, whose backward runs in
    # NumPy and is not differentiable again.
    (lambda lib, x: x.norm("nuc"), (3, 4), ()),
    (lambda lib, x: x.cumsum(1), (3, 4)),
    (lambda lib, x: lib.cumsum(x, -2, dtype=lib.float64), (3, 4)),
    (lambda lib, x: x.cumprod(0), (3, 4)),
    (lambda lib, x: lib.cumprod(x, -1), (2, 3, 4)),
    (lambda lib, x: lib.cummax(x, 1), (3, 4)),
    (lambda lib, x: lib.cummin(x, -2), (3, 4)),
    (lambda lib, x: x.logcumsumexp(1), (3, 4)),
    # float32 second derivatives of this one are rounding noise (1e-3 against terms of 2500).
    (lambda lib, x: lib.logcumsumexp(x * 50, 0), (3, 4), ("float64",)),
    (lambda lib, x: x.any(), (3, 4)),
    (lambda lib, x: lib.all(x > 0, 1, keepdim=True), (3, 4)),
    (lambda lib, x: lib.any(x > 1, (0, -1)), (2, 3, 4)),
    (lambda lib, x: lib.count_nonzero(x > 0), (3, 4)),
    (lambda lib, x: lib.count_nonzero(x > 0, (0, 1)), (2, 3, 4)),
    (lambda lib, x: (x > 0).count_nonzero(-1), (3, 4)),
    (lambda lib, x: x.nansum(1), (3, 4)),
    (lambda lib, x: lib.nanmean(x, (0, 1), keepdim=True), (3, 4)),
]


@pytest.mark.parametrize("non_contiguous", [False, True])
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("case", range(len(CASES)))
def test_against_torch(case, dtype, non_contiguous):
    fn, shape, *grad2_dtypes = CASES[case]
    grad2 = not grad2_dtypes or dtype in grad2_dtypes[0]
    check(fn, shape, dtype=dtype, non_contiguous=non_contiguous, grad2=grad2)


# Zero-dim inputs: dim 0 and -1 name the single element.
ZERO_DIM = [
    lambda lib, x: x.prod(0), lambda lib, x: x.var(correction=0), lambda lib, x: x.max(0),
    lambda lib, x: x.min(-1, keepdim=True), lambda lib, x: x.amax(0), lambda lib, x: x.argmax(0),
    lambda lib, x: x.argmin(), lambda lib, x: lib.logsumexp(x, 0), lambda lib, x: lib.norm(x),
    lambda lib, x: x.cumsum(0), lambda lib, x: x.cumprod(-1), lambda lib, x: lib.cummax(x, 0),
    lambda lib, x: lib.logcumsumexp(x, 0), lambda lib, x: x.any(0), lambda lib, x: x.nansum(),
    lambda lib, x: lib.aminmax(x), lambda lib, x: x.sum(0, keepdim=True),
    lambda lib, x: lib.count_nonzero(x, 0),
]


@pytest.mark.parametrize("case", range(len(ZERO_DIM)))
def test_zero_dim(case):
    check(ZERO_DIM[case], (), dtype="float64")


# Empty inputs where torch gives a result.
EMPTY = [
    lambda lib, x: x.sum(), lambda lib, x: x.prod(0), lambda lib, x: x.max(1),
    lambda lib, x: x.amax(1), lambda lib, x: x.argmax(1), lambda lib, x: lib.logsumexp(x, 0),
    lambda lib, x: lib.norm(x), lambda lib, x: lib.norm(x, INF, 1), lambda lib, x: x.cumsum(0),
    lambda lib, x: x.cumprod(1), lambda lib, x: lib.cummin(x, 0), lambda lib, x: x.all(),
    lambda lib, x: x.any(0), lambda lib, x: lib.aminmax(x, dim=1), lambda lib, x: x.nansum(0),
    lambda lib, x: lib.count_nonzero(x),
]


@pytest.mark.parametrize("case", range(len(EMPTY)))
def test_empty(case):
    check(EMPTY[case], (0, 3))


def test_mean_of_empty_is_nan_silently():
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # neither library warns
        check(lambda lib, x: (x.mean(), x.mean(0), x.mean(1)), (0, 3))


def test_mean_leaves_the_warning_registry_alone():
    # MorvanZhou's 404_autoencoder printed MNIST's "train_data has been renamed data" again
    # after training: each mean ran warnings.catch_warnings
    assert keeps_warnings_shown_once(lambda: ember.ones(3, requires_grad=True).mean().backward())


def test_var_with_too_few_values():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check(lambda lib, x: x.var(), (1,))
        check(lambda lib, x: x.std(), (1,))
        check(lambda lib, x: lib.var(x, 1, correction=3), (2, 2))
        check(lambda lib, x: x.var(), (0,))
    with pytest.warns(UserWarning, match="degrees of freedom is <= 0"):
        ember.ones(1).var()


@pytest.mark.parametrize("fn", [lambda lib, z: lib.var(z, 1), lambda lib, z: z.std(),
                                lambda lib, z: lib.var_mean(z, 0, correction=0),
                                lambda lib, z: lib.std_mean(z, keepdim=True, dim=1)])
def test_var_std_of_complex_are_real(fn):
    # |z - mean|^2 averaged: a real result (the mean of var_mean stays complex)
    def real_parts(lib, x, y):
        out = fn(lib, lib.complex(x, y))
        return tuple(lib.view_as_real(o) if o.is_complex() else o for o in out) \
            if isinstance(out, tuple) else out
    check(real_parts, (3, 4), (3, 4), dtype="float64")


@pytest.mark.parametrize("dim,keepdim", [(1, False), ((0, 1), True), (0, False)])
def test_logsumexp_of_complex(dim, keepdim):
    # the maximum real part is subtracted: the imaginary part lands in (-pi, pi] as in torch
    check(lambda lib, x, y: lib.view_as_real(lib.logsumexp(lib.complex(x, y * 5), dim, keepdim)),
          (3, 4), (3, 4), dtype="float64")


def test_std_of_constant_has_zero_gradient():
    check(lambda lib, x: x.std(1), np.ones((2, 3)))


# ---------------------------------------------------------------- ties, zeros, NaN
TIES = np.array([[1., 3., 3., -2.], [0., 0., 5., 5.]])
ZEROS = np.array([[2., 0., 3., 1.5], [0., 2., 0., 3.], [1., 2., 3., 4.]])
NANS = np.array([[1., np.nan, 3., np.nan], [2., 0., 1., -1.]])


@pytest.mark.parametrize("fn", [
    lambda lib, x: x.max(), lambda lib, x: x.min(), lambda lib, x: x.amax(1),
    lambda lib, x: x.amin(), lambda lib, x: x.max(1), lambda lib, x: x.min(dim=1),
    lambda lib, x: x.argmax(), lambda lib, x: x.argmin(1), lambda lib, x: lib.cummax(x, 1),
    lambda lib, x: lib.cummin(x, 1), lambda lib, x: lib.norm(x, INF, 1),
    lambda lib, x: lib.norm(x, -INF), lambda lib, x: lib.aminmax(x, dim=1),
])
def test_ties_follow_torch(fn):
    """Index choice and gradient sharing among equal values (argmax: the first)."""
    check(fn, TIES)


@pytest.mark.parametrize("fn", [
    lambda lib, x: x.prod(), lambda lib, x: x.prod(1), lambda lib, x: x.prod(0, keepdim=True),
    lambda lib, x: x.cumprod(1), lambda lib, x: x.cumprod(0), lambda lib, x: lib.norm(x, 0.5),
    lambda lib, x: lib.norm(x, 3, 1), lambda lib, x: lib.norm(x * 0, 2, 1),
    lambda lib, x: lib.norm(x * 0, 1), lambda lib, x: lib.norm(x * 0, 0.5),
])
def test_zeros_in_input(fn):
    """prod/cumprod gradients with zeros; norm gradient 0 at a zero norm, as in torch.
    grad2=False: with zeros, ember's gradient is a case formula built with masks, whose
    own derivative misses the cross terms between two zeros of a slice (prod, cumprod) and
    takes other one-sided values at a zero norm; torch's second derivatives are exact."""
    check(fn, ZEROS, dtype="float64", grad2=False)


def test_cumprod_double_backward_with_zeros():
    for lib in (ember, __import__("torch")):
        x = lib.tensor(ZEROS, requires_grad=True)
        (g,) = lib.autograd.grad(x.cumprod(1).sum(), x, create_graph=True)
        (gg,) = lib.autograd.grad((g * g).sum(), x)
        if lib is ember:
            ember_result = (g.detach().numpy(), gg.numpy())
    np.testing.assert_allclose(ember_result[0], g.detach().numpy())
    np.testing.assert_allclose(ember_result[1], gg.numpy())


@pytest.mark.parametrize("fn", [
    lambda lib, x: x.max(), lambda lib, x: x.max(1), lambda lib, x: x.amax(1),
    lambda lib, x: x.argmax(1), lambda lib, x: x.argmin(), lambda lib, x: lib.cummax(x, 1),
    lambda lib, x: lib.cummin(x, 1), lambda lib, x: x.nansum(1), lambda lib, x: x.nansum(),
    lambda lib, x: lib.nanmean(x, 1), lambda lib, x: x.sum(1), lambda lib, x: x.any(1),
    lambda lib, x: lib.count_nonzero(x, 1),
])
def test_nan_handling(fn):
    check(fn, NANS, dtype="float64")


def test_logsumexp_is_stable():
    check(lambda lib, x: lib.logsumexp(x, 1), np.array([[1000., 1000.], [-1000., -INF]]))
    check(lambda lib, x: lib.logsumexp(x, 0), np.array([INF, 1.]), grad=False)


# ---------------------------------------------------------------- integer and bool inputs
INTS = np.array([[3, -1, 2], [0, 5, 5]])


@pytest.mark.parametrize("fn", [
    lambda lib, x: x.sum(), lambda lib, x: x.prod(1), lambda lib, x: x.cumsum(0),
    lambda lib, x: x.cumprod(1), lambda lib, x: x.max(), lambda lib, x: x.min(1),
    lambda lib, x: x.amax(0), lambda lib, x: x.argmax(), lambda lib, x: lib.cummax(x, 1),
    lambda lib, x: x.any(1), lambda lib, x: x.all(), lambda lib, x: x.nansum(),
    lambda lib, x: lib.logsumexp(x, 1), lambda lib, x: x.int().sum(0),
    lambda lib, x: x.int().cumsum(1), lambda lib, x: x.short().prod(),
    lambda lib, x: (x > 0).sum(1), lambda lib, x: (x > 0).prod(), lambda lib, x: (x > 0).max(),
    lambda lib, x: (x > 0).cumsum(0), lambda lib, x: x.byte().any(), lambda lib, x: x.byte().all(1),
    lambda lib, x: x.cumsum(1, dtype=lib.int32), lambda lib, x: x.sum(dtype=lib.float32),
    lambda lib, x: x.mean(1, dtype=lib.float64), lambda lib, x: (x > 0).mean(dtype=lib.float16),
])
def test_integer_and_bool_dtypes(fn):
    check(fn, INTS, grad=False)


def test_return_types():
    x = ember.tensor([[1., 5.], [7., 2.]])
    result = x.max(1)
    values, indices = result
    assert type(result).__name__ == "max" and isinstance(result, tuple)
    assert result.values is values and result.indices is indices and result[1] is indices
    assert repr(result).startswith("torch.return_types.max(\nvalues=tensor([5., 7.]),\n")
    assert ember.aminmax(x)._fields == ("min", "max")
    assert isinstance(result, ember.return_types.max)


def test_grad_fn_names():
    x = ember.ones(2, 3, requires_grad=True)
    names = {"MaxBackward1": x.max(), "MaxBackward0": x.max(1)[0], "AmaxBackward0": x.amax(),
             "ProdBackward0": x.prod(), "ProdBackward1": x.prod(1), "VarBackward0": x.var(),
             "StdBackward0": x.std(), "CumsumBackward0": x.cumsum(0),
             "LogsumexpBackward0": x.logsumexp(0), "NansumBackward0": x.nansum(),
             "LinalgVectorNormBackward0": ember.norm(x)}
    for name, out in names.items():
        assert out.grad_fn.name() == name


def test_binary_max_is_maximum():
    check(lambda lib, x, y: lib.max(x, y), (3, 4), (4,))
    check(lambda lib, x, y: x.min(y), (3, 4), (3, 4))


def test_cumsum_inplace():
    check(lambda lib, x: (x * 1).cumsum_(1), (3, 4))


# ---------------------------------------------------------------- errors
@pytest.mark.parametrize("fn, exc, match", [
    (lambda lib: lib.zeros(0, 3).max(), RuntimeError,
     r"^max\(\): Expected reduction dim to be specified for input.numel\(\) == 0"),
    (lambda lib: lib.zeros(0, 3).min(0), IndexError,
     r"^min\(\): Expected reduction dim 0 to have non-zero size"),
    (lambda lib: lib.zeros(0, 3).amax(), RuntimeError, r"^amax\(\): Expected reduction dim"),
    (lambda lib: lib.zeros(0, 3).amin((1, 0)), IndexError,
     r"^amin\(\): Expected reduction dim 0 to have non-zero size"),
    (lambda lib: lib.zeros(0, 3).argmax(), IndexError,
     r"^argmax\(\): Expected reduction dim to be specified for input.numel\(\) == 0"),
    (lambda lib: lib.zeros(0, 3).argmin(0), IndexError, r"^argmin\(\): Expected reduction dim 0"),
    (lambda lib: lib.aminmax(lib.zeros(0)), RuntimeError,
     r"^aminmax\(\): cannot compute aminmax over an empty dimension"),
    (lambda lib: lib.aminmax(lib.zeros(0, 2), dim=0), IndexError,
     r"^aminmax: Expected reduction dim 0 to have non-zero size"),
    (lambda lib: lib.ones(2, 3).sum((0, -2)), RuntimeError,
     r"^dim 0 appears multiple times in the list of dims"),
    (lambda lib: lib.ones(2, 3).max(2), IndexError,
     r"^Dimension out of range \(expected to be in range of \[-2, 1\], but got 2\)"),
    (lambda lib: lib.ones(2, 3).cumsum(-3), IndexError, r"^Dimension out of range"),
    (lambda lib: lib.ones(2, dtype=lib.int64).var(), RuntimeError,
     r"^std and var only support floating point and complex dtypes"),
    (lambda lib: lib.ones(2, dtype=lib.int64).mean(), RuntimeError,
     r"^mean\(\): could not infer output dtype. Input dtype must be either a floating point or "
     r"complex dtype. Got: Long$"),
    (lambda lib: lib.ones(2).mean(dtype=lib.int64), RuntimeError,
     r"^mean\(\): could not infer output dtype. Optional dtype must be either a floating point "
     r"or complex dtype. Got: Long$"),
    (lambda lib: lib.ones(2, dtype=lib.int64).nanmean(), RuntimeError,
     r"^nanmean\(\): expected input to have floating point or complex dtype but got Long"),
    (lambda lib: lib.norm(lib.ones(2, dtype=lib.int64)), RuntimeError,
     r"^linalg.vector_norm: Expected a floating point or complex tensor as input. Got Long"),
    (lambda lib: lib.norm(lib.zeros(0, 2), INF), RuntimeError,
     r"^linalg.vector_norm cannot compute the inf norm on an empty tensor"),
    (lambda lib: lib.norm(lib.zeros(0, 2), INF, 0), RuntimeError,
     r"^linalg.vector_norm cannot compute the inf norm on the dimension 0"),
    (lambda lib: lib.norm(lib.ones(2, 2), "abc"), RuntimeError,
     r"^linalg.matrix_norm: Order abc not supported"),
    (lambda lib: lib.logcumsumexp(lib.ones(2, dtype=lib.int64), 0), NotImplementedError,
     r"^\"logcumsumexp_out_cpu\" not implemented for 'Long'"),
    (lambda lib: lib.logcumsumexp(lib.ones(2, dtype=lib.int64), 5), IndexError,
     r"^Dimension out of range"),
    (lambda lib: lib.ones(2, dtype=lib.int64).mean(5), RuntimeError,
     r"^mean\(\): could not infer output dtype"),
    (lambda lib: lib.prod(lib.ones(2, 2), (0, 1)), TypeError,
     r"^prod\(\) received an invalid combination of arguments"),
    (lambda lib: lib.var(lib.ones(2, 2), 1, True, correction=1), TypeError,
     r"^var\(\) received an invalid combination of arguments"),
])
def test_errors(fn, exc, match):
    check_error(fn, exc, match)


@pytest.mark.parametrize("fn", [
    lambda lib, x: x.var(1), lambda lib, x: x.std(0), lambda lib, x: x.prod(1),
    lambda lib, x: x.prod(), lambda lib, x: lib.logsumexp(x, 1), lambda lib, x: lib.norm(x),
    lambda lib, x: lib.norm(x, 3, 1), lambda lib, x: x.cumsum(0), lambda lib, x: x.cumprod(1),
    lambda lib, x: x.logcumsumexp(1), lambda lib, x: x.amax(1), lambda lib, x: x.max(0)[0],
    lambda lib, x: lib.cummax(x, 1)[0], lambda lib, x: x.nansum(0),
])
def test_double_backward(fn):
    """The gradient's own gradient (create_graph=True) matches torch's."""
    def grad_of_grad(lib, x):
        (g,) = lib.autograd.grad((fn(lib, x) ** 2).sum(), x, create_graph=True)
        return g, lib.autograd.grad((g * g).sum(), x)[0]
    check(grad_of_grad, (3, 4), dtype="float64", grad=False, grad_inputs=[0])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("p, shapes", [(2, ((3, 4), (3, 4))), (1, ((3, 4), (4,))),
                                       (INF, ((2, 1, 3), (4, 1))), (-INF, ((3,), (3,))),
                                       (0, ((3, 4), (3, 4))), (3.5, ((0,), (0,))),
                                       (2, ((), ()))])
def test_dist(p, shapes, dtype):
    grad = p != 0       # torch 2.13's backward for p=0 fails ("Expected a proper Tensor")
    check(lambda lib, a, b: lib.dist(a, b, p), *shapes, dtype=dtype, grad=grad)
    check(lambda lib, a, b: a.dist(b, p=p), *shapes, dtype=dtype, grad=grad,
          non_contiguous=True)


def test_dist_name_promotion_and_errors():
    x = ember.ones(3, requires_grad=True)
    assert ember.dist(x, x * 2).grad_fn.name() == "DistBackward0"
    assert ember.dist(ember.ones(2, dtype=ember.float64), ember.ones(2)).dtype == ember.float64
    check_error(lambda lib: lib.dist(lib.ones(3, dtype=lib.int64), lib.ones(3, dtype=lib.int64)),
                RuntimeError, r"^norm\(\): input dtype should be either floating point or "
                r"complex. Got Long instead.$")
    check_error(lambda lib: lib.dist(lib.ones(3), lib.ones(2)), RuntimeError,
                r"^The size of tensor a \(3\) must match the size of tensor b \(2\)")
    check_error(lambda lib: lib.dist(lib.ones(0), lib.ones(0), INF), RuntimeError,
                r"^linalg.vector_norm cannot compute the inf norm on an empty tensor")


@pytest.mark.parametrize("dtype", ["float32", "int64", "bool"])
def test_sum_to_size_of_a_zero_dim_tensor_is_a_new_sum(dtype):
    # torch sums a 0-d tensor even to its own size (): a new tensor, bool becoming int64;
    # any other tensor already of the size comes back as itself.
    for lib in (torch, ember):
        x = lib.tensor(np.array(1, dtype=dtype))
        y = lib.tensor(np.ones((2, 3), dtype=dtype))
        assert x.sum_to_size(()) is not x and y.sum_to_size((2, 3)) is y
    check(lambda lib, x: x.sum_to_size(()), np.array(2.5, dtype=np.float32))
    assert str(ember.tensor(True).sum_to_size(()).dtype) == str(torch.tensor(True).sum_to_size(
        ()).dtype)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
@pytest.mark.parametrize("fn", [
    lambda lib, x: x.norm(), lambda lib, x: lib.linalg.vector_norm(x, 3, dim=1),
    lambda lib, x: x.norm(1), lambda lib, x: x.norm(2, dim=(-2, -1), keepdim=True),
    lambda lib, x: x.std(), lambda lib, x: x.var(0), lambda lib, x: lib.std_mean(x, 1),
    lambda lib, x: x.cumsum(1), lambda lib, x: x.logsumexp(1),
])
def test_half_norms_and_variances_accumulate_in_float32(fn, dtype):
    # timm's Muon scales a bfloat16 gradient by X.norm(): summed in bfloat16 it came out
    # 3x too small on 36864 elements, and the Newton-Schulz iteration blew up to nan.
    check(fn, (64, 576), dtype=dtype, grad=False, atol=0, rtol=1e-2)
