"""The `normalization` kernel family (ember/_cpu/normalization.py and its numba twin):
layer_norm, group_norm, batch_norm and instance_norm through torch.nn.functional and the
modules against torch in both kernel modes, and the two implementations against each
other."""
import numpy as np
import pytest

from ember._cpu import normalization as reference
from oracle import check, check_error


def _layer_norm(shape, eps=1e-5):
    def run(lib, x, *parameters):
        return lib.nn.functional.layer_norm(x, shape, *parameters, eps=eps)
    return run


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_values_and_gradients(kernels, dtype):
    check(_layer_norm((128,)), (12, 64, 128), (128,), (128,), dtype=dtype)
    check(_layer_norm((4, 5), eps=1e-3), (2, 3, 4, 5), (4, 5), (4, 5), dtype=dtype)
    check(_layer_norm((37,)), (5, 37), (37,), (37,), dtype=dtype)


@pytest.mark.parametrize("affine", ["weight", "bias", "none"])
def test_weight_or_bias_alone(kernels, affine):
    specs = {"weight": [(9,)], "bias": [(9,)], "none": []}[affine]
    if affine == "bias":
        check(lambda lib, x, b: lib.nn.functional.layer_norm(x, (9,), None, b), (4, 9), *specs)
    else:
        check(_layer_norm((9,)), (4, 9), *specs)


def test_only_some_gradients_wanted(kernels):
    check(_layer_norm((6,)), (5, 6), (6,), (6,), grad_inputs=[0])
    check(_layer_norm((6,)), (5, 6), (6,), (6,), grad_inputs=[1, 2])
    check(_layer_norm((6,)), (5, 6), (6,), (6,), grad_inputs=[2])


def test_non_contiguous_input_and_gradient(kernels):
    check(_layer_norm((7,)), (9, 7), (7,), (7,), non_contiguous=True)
    check(lambda lib, x, w, b: lib.nn.functional.layer_norm(x.t(), (6,), w, b).sum(),
          (6, 40), (6,), (6,))


def test_empty_rows_and_empty_normalized_shape(kernels):
    check(_layer_norm((5,)), (0, 5), (5,), (5,))
    check(_layer_norm((0,)), (3, 0), (0,), (0,))


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_16_bit_input(kernels, dtype):
    check(_layer_norm((8,)), (4, 8), (8,), (8,), dtype=dtype)


def test_module_matches_torch(kernels):
    def run(lib, x):
        lib.manual_seed(0)
        norm = lib.nn.LayerNorm(16, elementwise_affine=True, bias=False)
        return norm(x)
    check(run, (3, 4, 16))
    check(lambda lib, x: lib.nn.LayerNorm(16, elementwise_affine=False)(x), (3, 16))


def test_double_backward(kernels):
    def second(lib, x, w, b):
        y = lib.nn.functional.layer_norm(x, (6,), w, b)
        gx, gw = lib.autograd.grad((y * y * y).sum(), (x, w), create_graph=True)
        return gx, gw
    check(second, (3, 6), (6,), (6,), dtype="float64")


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_group_norm_runs_on_the_layer_norm_kernels(kernels, dtype):
    check(lambda lib, x, w, b: lib.nn.functional.group_norm(x, 3, w, b), (4, 6, 5, 7), (6,),
          (6,), dtype=dtype)
    check(lambda lib, x: lib.nn.functional.group_norm(x, 2), (3, 4, 9), dtype=dtype)


def _batch_norm(lib, x, w=None, b=None):
    c = x.shape[1]
    mean, var = lib.zeros(c, dtype=x.dtype), lib.ones(c, dtype=x.dtype)
    y = lib.nn.functional.batch_norm(x, mean, var, w, b, training=True, momentum=0.3)
    return y, mean, var                   # the running statistics are compared too


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape", [(6, 5), (4, 3, 7), (3, 5, 6, 7), (2, 3, 2, 3, 4)])
def test_batch_norm_training(kernels, dtype, shape):
    check(_batch_norm, shape, shape[1:2], shape[1:2], dtype=dtype)


def test_batch_norm_without_affine_some_gradients_and_16_bit(kernels):
    check(_batch_norm, (4, 3, 5))
    check(_batch_norm, (4, 3, 5), (3,), (3,), grad_inputs=[1, 2])
    check(_batch_norm, (4, 3, 5), (3,), (3,), grad_inputs=[0])
    check(_batch_norm, (4, 3, 5), (3,), (3,), dtype="bfloat16")


def test_batch_norm_non_contiguous_input(kernels):
    check(lambda lib, x, w, b: _batch_norm(lib, x.permute(0, 3, 1, 2), w, b), (2, 5, 6, 4),
          (4,), (4,))


def test_batch_norm_module_and_double_backward(kernels):
    def run(lib, x):
        lib.manual_seed(0)
        norm = lib.nn.BatchNorm2d(3)
        return norm(x), norm.running_mean, norm.running_var
    check(run, (4, 3, 5, 5))

    def second(lib, x, w, b):
        y = _batch_norm(lib, x, w, b)[0]
        return lib.autograd.grad((y * y * y).sum(), (x, w), create_graph=True)
    check(second, (4, 3, 5), (3,), (3,), dtype="float64")


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_instance_norm(kernels, dtype):
    check(lambda lib, x, w, b: lib.nn.functional.instance_norm(x, weight=w, bias=b),
          (3, 4, 5, 6), (4,), (4,), dtype=dtype)

    def tracked(lib, x):
        mean, var = lib.zeros(4, dtype=x.dtype), lib.ones(4, dtype=x.dtype)
        return lib.nn.functional.instance_norm(x, mean, var, momentum=0.5), mean, var
    check(tracked, (2, 4, 9), dtype=dtype)


def test_errors_match_torch():
    check_error(lambda lib: lib.nn.functional.layer_norm(lib.ones(2, 3), ()), RuntimeError,
                r"Expected normalized_shape to be at least 1-dimensional")
    check_error(lambda lib: lib.nn.functional.layer_norm(lib.ones(2, 3), (3,), lib.ones(2)),
                RuntimeError, r"Expected weight to be of same shape as normalized_shape, but "
                              r"got weight of shape \[2\] and normalized_shape = \[3\]")
    check_error(lambda lib: lib.nn.functional.layer_norm(lib.ones(2, 3), (3,), None,
                                                         lib.ones(4)),
                RuntimeError, r"Expected bias to be of same shape as normalized_shape")
    check_error(lambda lib: lib.nn.functional.layer_norm(
        lib.ones(2, 3), (3,), lib.ones(3, dtype=lib.float64)), RuntimeError,
        r"mixed dtype \(CPU\): expect parameter to have scalar type of Float")


# (kernel, x's shape, number of parameters): layer norm over rows, batch norm over channels.
FORMS = [("layer_norm", (300, 50), 50), ("batch_norm", (8, 5, 300), 5)]


@pytest.mark.parametrize("dtype,tol", [(np.float32, 1e-5), (np.float64, 1e-12)])
@pytest.mark.parametrize("mask", [(True, True, True), (True, False, False), (False, True, True)])
@pytest.mark.parametrize("kernel,shape,size", FORMS)
def test_numba_kernels_agree_with_the_numpy_kernels(kernel, shape, size, dtype, tol, mask):
    # The numba kernels sum in float64, the NumPy ones in x's dtype.
    twin = pytest.importorskip("ember._cpu.numba.normalization")
    rng = np.random.default_rng(0)
    x, grad = (rng.standard_normal(shape).astype(dtype) + 3 for _ in range(2))
    weight, bias = (rng.standard_normal(size).astype(dtype) for _ in range(2))
    for w, b in [(weight, bias), (None, None)]:
        expected = getattr(reference, kernel)(x, w, b, 1e-5)
        got = getattr(twin, kernel)(x, w, b, 1e-5)
        for e, g in zip(expected, got):
            assert g.dtype == dtype
            np.testing.assert_allclose(g, e, rtol=tol, atol=tol)
        mean, rstd = expected[1], expected[-1]
        expected = getattr(reference, kernel + "_backward")(grad, x, mean, rstd, w, mask)
        got = getattr(twin, kernel + "_backward")(grad, x, mean, rstd, w, mask)
        for e, g in zip(expected, got):
            assert (g is None) == (e is None)
            if e is not None:
                assert g.dtype == dtype
                np.testing.assert_allclose(g, e, rtol=tol * 10, atol=tol * 10)


def test_numba_kernels_fall_back_for_other_dtypes():
    twin = pytest.importorskip("ember._cpu.numba.normalization")
    x = np.linspace(-2, 2, 24, dtype=np.float16).reshape(4, 6)
    weight = np.ones(6, np.float16)
    expected = reference.layer_norm(x, weight, None, 1e-5)
    got = twin.layer_norm(x, weight, None, 1e-5)
    for e, g in zip(expected, got):
        np.testing.assert_array_equal(g, e)
    mean, rstd = expected[1:]
    expected = reference.layer_norm_backward(x, x, mean, rstd, weight, (True, True, True))
    got = twin.layer_norm_backward(x, x, mean, rstd, weight, (True, True, True))
    for e, g in zip(expected, got):
        np.testing.assert_array_equal(g, e)
    x3 = x.reshape(2, 3, 4)
    expected = reference.batch_norm(x3, None, None, 1e-5)
    got = twin.batch_norm(x3, None, None, 1e-5)
    for e, g in zip(expected, got):
        np.testing.assert_array_equal(g, e)
