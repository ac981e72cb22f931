"""Number functions against torch: gcd, lcm, heaviside, nextafter, ldexp, frexp, i0 and
renorm (values, dtypes, gradients where torch defines them, errors)."""
import numpy as np
import pytest
import torch

import ember
from oracle import check, check_error

DTYPES = ["float32", "float64"]
INTS_A = np.array([[12, -18, 0, 7], [5, 0, 100, -9]])
INTS_B = np.array([8, 12, 0, -21], dtype=np.int32)


# ---------------------------------------------------------------- gcd / lcm
@pytest.mark.parametrize("fn", ["gcd", "lcm"])
def test_gcd_lcm(fn):
    check(lambda lib, a, b: (getattr(lib, fn)(a, b), getattr(a, fn)(b)), INTS_A, INTS_B,
          grad=False)
    check(lambda lib, a, b: getattr(lib, fn)(a, b), np.int16(6), INTS_B, grad=False)
    check(lambda lib, a, b: getattr(lib, fn)(a, b), np.zeros((0, 4), np.int64), INTS_B,
          grad=False)
    check(lambda lib, a, b: getattr(lib, fn)(a, b), np.array([4, 6], np.uint8),
          np.array([6, 9], np.uint8), grad=False)


@pytest.mark.parametrize("fn", ["gcd", "lcm"])
def test_gcd_lcm_in_place(fn):
    check(lambda lib, a, b: (getattr(a, fn + "_")(b), a._version), INTS_A, INTS_B, grad=False)
    check(lambda lib, a, b: getattr(a, fn + "_")(b), INTS_B, INTS_A[0], grad=False)


@pytest.mark.parametrize("fn", ["gcd", "lcm"])
def test_gcd_lcm_errors(fn):
    check_error(lambda lib: getattr(lib, fn)(lib.ones(2), lib.ones(2)), NotImplementedError,
                rf"^\"{fn}_cpu\" not implemented for 'Float'")
    check_error(lambda lib: getattr(lib, fn)(lib.tensor([True]), lib.tensor([True])),
                NotImplementedError, rf"^\"{fn}_cpu\" not implemented for 'Bool'")
    check_error(lambda lib: getattr(lib, fn)(lib.tensor([4]), 2), TypeError,
                rf"^{fn}\(\): argument 'other' \(position 2\) must be Tensor, not int")
    check_error(lambda lib: getattr(lib, fn)(lib.tensor([4, 2]), lib.tensor([1, 2, 3])),
                RuntimeError, r"^The size of tensor a \(2\) must match the size of tensor b \(3\)")


# ---------------------------------------------------------------- heaviside
@pytest.mark.parametrize("dtype", DTYPES)
def test_heaviside(dtype):
    x = np.array([[-1.5, 0.0, 2.0, np.nan], [0.0, -0.0, 1e-30, -np.inf]], dtype=dtype)
    check(lambda lib, x, v: (lib.heaviside(x, v), x.heaviside(v)), x, (4,), dtype=dtype,
          grad=False)
    check(lambda lib, x, v: lib.heaviside(x, v), x, np.array(0.5, dtype=dtype), dtype=dtype,
          grad=False)
    check(lambda lib, x: lib.heaviside(x, lib.tensor([7, 8])), np.array([-2, 0]), grad=False)


def test_heaviside_with_grad_has_no_derivative():
    for lib in (torch, ember):
        x = lib.zeros(3, requires_grad=True)
        out = lib.heaviside(x, lib.tensor(0.5))
        assert out.requires_grad and type(out.grad_fn).__name__ == "NotImplemented"
    check_error(lambda lib: lib.heaviside(lib.zeros(3, requires_grad=True),
                                          lib.tensor(0.5)).sum().backward(),
                RuntimeError, r"^derivative for aten::heaviside is not implemented")


def test_heaviside_in_place_and_errors():
    check(lambda lib, x, v: (x.heaviside_(v), x._version), (3, 4), (4,), grad=False)
    check_error(lambda lib: lib.heaviside(lib.ones(2), lib.tensor(0.5, dtype=lib.float64)),
                RuntimeError, r"^heaviside is not yet implemented for tensors with different "
                r"dtypes.")
    check_error(lambda lib: lib.heaviside(lib.ones(2), 0.5), TypeError,
                r"^heaviside\(\): argument 'values' \(position 2\) must be Tensor, not float")


# ---------------------------------------------------------------- nextafter
@pytest.mark.parametrize("dtype", DTYPES)
def test_nextafter(dtype):
    x = np.array([0.0, 1.0, -1.0, np.inf, np.nan, 1.0])
    y = np.array([1.0, 2.0, -2.0, 0.0, 1.0, 1.0])
    check(lambda lib, x, y: (lib.nextafter(x, y), x.nextafter(y)), x, y, dtype=dtype,
          atol=0, rtol=0, grad=False)
    # torch passes the gradient straight through to input and gives other zeros
    check(lambda lib, x, y: lib.nextafter(x, y), (2, 3), (3,), dtype=dtype)
    check(lambda lib, x, y: (x.nextafter_(y), x._version), (2, 3), (3,), dtype=dtype,
          grad=False)


def test_nextafter_errors():
    check_error(lambda lib: lib.nextafter(lib.tensor([1]), lib.tensor([2])),
                NotImplementedError, r"^\"nextafter_cpu\" not implemented for 'Long'")
    check_error(lambda lib: lib.nextafter(lib.ones(2), 1.0), TypeError,
                r"^nextafter\(\): argument 'other' \(position 2\) must be Tensor, not float")


# ---------------------------------------------------------------- ldexp / frexp
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("nc", [False, True])
def test_ldexp(dtype, nc):
    exponents = np.array([[1, 2, 0], [3, 0, 5]])
    check(lambda lib, x, e: (lib.ldexp(x, e), x.ldexp(e)), (2, 3), exponents, dtype=dtype,
          non_contiguous=nc)
    check(lambda lib, x, e: lib.ldexp(x, e), (2, 3), (3,), dtype=dtype)   # float exponents
    check(lambda lib, x: lib.ldexp(x, lib.tensor(2)), (), dtype=dtype)
    check(lambda lib, x: lib.ldexp(x, lib.tensor([1, 2], dtype=lib.int32)), (0, 2),
          dtype=dtype)


def test_ldexp_negative_integer_exponents():
    # torch 2.13 computes the input's gradient as grad * 2 ** other in integers, so it is 0
    # for negative integer exponents; ember gives the right value grad * 2.0 ** other.
    x = ember.ones(3, dtype=ember.float64, requires_grad=True)
    out = ember.ldexp(x * 3, ember.tensor([-2, 0, -1]))
    np.testing.assert_array_equal(out.detach().numpy(), [0.75, 3.0, 1.5])
    out.backward(ember.tensor([1.0, 2.0, 4.0], dtype=ember.float64))
    np.testing.assert_array_equal(x.grad.numpy(), [0.75, 6.0, 6.0])


def test_ldexp_integers_in_place_names_and_errors():
    check(lambda lib, x, e: lib.ldexp(x, e), np.array([1, 3]), np.array([2, -1]), grad=False)
    check(lambda lib, x: (x.ldexp_(lib.tensor([1, 2, 3])), x._version), (2, 3), grad=False)
    check(lambda lib, x: lib.ldexp(x, lib.tensor(1)).grad_fn.name(), (2,))
    check_error(lambda lib: lib.ldexp(lib.ones(2), 2), TypeError,
                r"^ldexp\(\): argument 'other' \(position 2\) must be Tensor, not int")


@pytest.mark.parametrize("dtype", DTYPES)
def test_frexp(dtype):
    special = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, -3.0, 1e-40, 0.5, 1.0])
    check(lambda lib, x: tuple(lib.frexp(x)), special, dtype=dtype, grad=False)
    check(lambda lib, x: (lib.frexp(x).mantissa, x.frexp().exponent), (3, 4), dtype=dtype,
          non_contiguous=True)
    check(lambda lib, x: tuple(lib.frexp(x)), (0, 2), dtype=dtype)


def test_frexp_result_type_and_errors():
    x = ember.tensor([4.0, 0.75], requires_grad=True)
    result = ember.frexp(x)
    assert repr(result).startswith("torch.return_types.frexp(\nmantissa=tensor(")
    assert result.exponent.dtype == ember.int32 and not result.exponent.requires_grad
    assert result.mantissa.grad_fn.name() == "FrexpBackward0"
    check(lambda lib, x: tuple(lib.frexp(x)), (3,), dtype="float32", grad=False)
    check(lambda lib: tuple(lib.frexp(lib.tensor([3.0, -0.1], dtype=lib.float16))), grad=False)
    check_error(lambda lib: lib.frexp(lib.tensor([1, 2])), RuntimeError,
                r"^torch.frexp\(\) only supports floating-point dtypes")


# ---------------------------------------------------------------- i0
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("nc", [False, True])
def test_i0(dtype, nc):
    check(lambda lib, x: (lib.i0(x * 10), x.i0()), (3, 4), dtype=dtype, non_contiguous=nc)
    check(lambda lib, x: lib.i0(x), np.array([0.0, 19.9, -20.1, 35.0, -60.0, 700.0, 800.0]),
          dtype=dtype)
    check(lambda lib, x: lib.i0(x), (), dtype=dtype)
    check(lambda lib, x: lib.i0(x), (0, 3), dtype=dtype)


def test_i0_integers_in_place_and_double_backward():
    check(lambda lib, x: lib.i0(x), np.array([0, 1, -3]), grad=False)
    check(lambda lib, x: (x.i0_(), x._version), (2, 3), grad=False)
    check(lambda lib, x: lib.i0(x).grad_fn.name(), (2,))

    def second_derivative(lib, x):
        (slope,) = lib.autograd.grad(lib.i0(x).sum(), x, create_graph=True)
        return slope
    check(second_derivative, np.array([0.0, 0.5, -3.0, 25.0]), dtype="float64")
    check_error(lambda lib: lib.ones(2, requires_grad=True).i0_(), RuntimeError,
                r"^a leaf Variable that requires grad is being used in an in-place operation.")


# ---------------------------------------------------------------- renorm
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("p, dim, maxnorm", [(2, 0, 1.0), (1, 1, 0.5), (3.0, -1, 2.0),
                                             (float("inf"), 0, 0.5), (2, 2, 100.0),
                                             (2, 1, 0.0)])
def test_renorm(dtype, p, dim, maxnorm):
    check(lambda lib, x: (lib.renorm(x, p, dim, maxnorm), x.renorm(p, dim, maxnorm)),
          (3, 4, 2), dtype=dtype, non_contiguous=True)


def test_renorm_in_place_empty_and_tensor_maxnorm():
    check(lambda lib, x: (x.renorm_(2, 0, 1.0), x._version), (3, 4), grad=False)
    check(lambda lib, x: (x * 1).renorm_(2, 0, 1.0), (3, 4), dtype="float64")
    check(lambda lib, x: lib.renorm(x, 2, 0, 1.0), (0, 2))
    check(lambda lib, x: lib.renorm(x, 2, 0, lib.tensor(1.0)), (2, 2))
    check(lambda lib, x: lib.renorm(x, 2, 0, 1.0).grad_fn.name(), (2, 2))


def test_renorm_errors():
    check_error(lambda lib: lib.renorm(lib.ones(3), 2, 0, 1.0), RuntimeError,
                r"^renorm: input needs at least 2 dimensions, got 1 dimensions")
    check_error(lambda lib: lib.renorm(lib.ones(2, 2), -1, 0, 1.0), RuntimeError,
                r"^renorm: non-positive-norm not supported")
    check_error(lambda lib: lib.renorm(lib.ones(2, 2), 2, 0, -1.0), RuntimeError,
                r"^renorm: expected maxnorm to be >= 0 but got -1")
    check_error(lambda lib: lib.renorm(lib.ones(2, 2), 2, 2, 1.0), IndexError,
                r"^Dimension out of range \(expected to be in range of \[-2, 1\], but got 2\)")
    check_error(lambda lib: lib.renorm(lib.ones(2, 2, dtype=lib.long), 2, 0, 1.0),
                RuntimeError, r"^linalg.vector_norm: Expected a floating point or complex "
                r"tensor as input. Got Long")
