"""matrix_exp, geqrf and householder_product/orgqr (ember/ops/matrix_exp.py,
ember/ops/householder.py) against torch: values, gradients, double backward, errors."""
import numpy as np
import pytest
import torch

import ember
from oracle import assert_same, check, check_error, rng

DTYPES = ["float32", "float64"]


# ---------------------------------------------------------------- matrix_exp
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(1, 1), (3, 3), (2, 5, 5), (2, 1, 4, 4), (0, 0),
                                   (3, 0, 0)])
def test_matrix_exp(shape, dtype):
    check(lambda L, a: L.matrix_exp(a), shape, dtype=dtype)
    check(lambda L, a: L.linalg.matrix_exp(a), shape, dtype=dtype)


@pytest.mark.parametrize("scale", [1e-3, 4.0, 40.0])
def test_matrix_exp_scaling_and_squaring(scale):
    """Norms far below and above the Padé range; a batch mixing both."""
    a = rng(3).standard_normal((3, 6, 6)) * np.array([scale, 1.0, 1e-2])[:, None, None]
    check(lambda L, x: x.matrix_exp(), a, dtype="float64", rtol=1e-9)


def test_matrix_exp_known_values():
    # exp of a rotation generator is the rotation; of a nilpotent matrix, I + N
    theta = 0.7
    rotation = ember.tensor([[0.0, -theta], [theta, 0.0]], dtype=ember.float64).matrix_exp()
    np.testing.assert_allclose(rotation.numpy(), [[np.cos(theta), -np.sin(theta)],
                                                  [np.sin(theta), np.cos(theta)]], atol=1e-15)
    nilpotent = ember.tensor([[0.0, 2.0], [0.0, 0.0]]).matrix_exp()
    np.testing.assert_array_equal(nilpotent.numpy(), [[1.0, 2.0], [0.0, 1.0]])


def test_matrix_exp_non_contiguous():
    check(lambda L, a: L.matrix_exp(a.mT), (4, 4), dtype="float64")


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_matrix_exp_16_bit(dtype):
    """torch 2.13's CPU kernel returns inf/nan in 16-bit floats; ember computes in float64
    and rounds, so compare with torch's float32 result rounded to the same dtype."""
    a = rng(4).standard_normal((3, 3)).astype(np.float32)
    expected = torch.matrix_exp(torch.tensor(a)).to(getattr(torch, dtype))
    result = ember.matrix_exp(ember.tensor(a).to(getattr(ember, dtype)))
    assert_same(result, expected, 0, 1e-2)


def test_matrix_exp_double_backward_and_name():
    check(lambda L, a: L.autograd.grad((L.matrix_exp(a) ** 2).sum(), a,
                                       create_graph=True)[0], (3, 3), dtype="float64")
    x = ember.ones(2, 2, requires_grad=True)
    assert ember.matrix_exp(x).grad_fn.name() == "LinalgMatrixExpBackward0"


def test_matrix_exp_inf_gives_nan_quickly():
    a = np.full((2, 2), np.inf)
    assert_same(ember.matrix_exp(ember.tensor(a)), torch.matrix_exp(torch.tensor(a)), 0, 0)


@pytest.mark.parametrize("fn, match", [
    (lambda L: L.matrix_exp(L.ones(2, 3)), r"^linalg.matrix_exp: A must be batches of "
     r"square matrices, but they are 2 by 3 matrices$"),
    (lambda L: L.matrix_exp(L.ones(3, 3, dtype=L.int64)), r"^linalg.matrix_exp: Expected a "
     r"floating point or complex tensor as input. Got Long$"),
    (lambda L: L.matrix_exp(L.ones(3)), r"^linalg.matrix_exp: The input tensor A must have "
     r"at least 2 dimensions.$"),
])
def test_matrix_exp_errors(fn, match):
    check_error(fn, RuntimeError, match)


# ---------------------------------------------------------------- geqrf
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(5, 3), (3, 5), (4, 4), (2, 6, 3), (0, 3), (3, 0)])
def test_geqrf(shape, dtype):
    check(lambda L, a: tuple(L.geqrf(a)), shape, dtype=dtype, grad=False)
    check(lambda L, a: tuple(a.geqrf()), shape, dtype=dtype, grad=False,
          non_contiguous=True)


def test_geqrf_has_no_gradient():
    for lib in (torch, ember):
        a, tau = lib.geqrf(lib.ones(3, 2, requires_grad=True))
        assert a.grad_fn.name() == "GeqrfBackward0" and tau.requires_grad
    check_error(lambda L: L.geqrf(L.eye(3, 2, requires_grad=True))[0].sum().backward(),
                NotImplementedError, "^the derivative for 'geqrf' is not implemented.$")


def test_geqrf_errors():
    check_error(lambda L: L.geqrf(L.ones(3)), RuntimeError,
                r"^torch.geqrf: input must have at least 2 dimensions.$")
    check_error(lambda L: L.geqrf(L.ones(3, 3, dtype=L.int64)), NotImplementedError,
                "^\"geqrf_cpu\" not implemented for 'Long'$")


# ---------------------------------------------------------------- householder_product
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape, k", [((5, 3), 3), ((5, 3), 2), ((4, 4), 4), ((4, 4), 0),
                                      ((2, 6, 3), 3), ((2, 1, 5, 2), 1), ((0, 0), 0)])
def test_householder_product(shape, k, dtype):
    tau = rng(7).uniform(0.2, 1.8, shape[:-2] + (k,)).astype(dtype)
    check(lambda L, a, t: L.linalg.householder_product(a, t), shape, tau, dtype=dtype)
    check(lambda L, a, t: L.orgqr(a, t), shape, tau, dtype=dtype)


def test_householder_product_inverts_geqrf():
    """The Q of geqrf's compact form is NumPy's reduced QR's Q."""
    a = rng(2).standard_normal((3, 7, 4))
    compact, tau = ember.geqrf(ember.tensor(a))
    q = ember.linalg.householder_product(compact, tau)
    np.testing.assert_allclose(q.numpy(), np.linalg.qr(a)[0], atol=1e-13)


def test_householder_product_double_backward_and_name():
    tau = rng(5).uniform(0.5, 1.5, 3)
    check(lambda L, a, t: L.autograd.grad((L.linalg.householder_product(a, t) ** 3).sum(),
                                          (a, t), create_graph=True),
          (5, 3), tau, dtype="float64")
    q = ember.linalg.householder_product(ember.ones(3, 2, requires_grad=True), ember.ones(2))
    assert q.grad_fn.name() == "LinalgHouseholderProductBackward0"


@pytest.mark.parametrize("shapes, match", [
    (((3, 4), (3,)), r"input.shape\[-2\] must be greater than or equal to input.shape\[-1\]$"),
    (((4, 3), (4,)), r"input.shape\[-1\] must be greater than or equal to tau.shape\[-1\]$"),
    (((4, 3), (2, 2)), r"Expected tau to have one dimension less than input, but got tau.ndim "
     r"equal to 2 and input.ndim is equal to 2$"),
    (((3,), (1,)), r"input must have at least 2 dimensions.$"),
    (((2, 4, 3), (3, 2)), r"Expected batch dimensions of tau to be equal to "
     r"input.shape\[:-2\], but got \[3\]$"),
])
def test_householder_product_errors(shapes, match):
    check_error(lambda L: L.linalg.householder_product(L.ones(*shapes[0]), L.ones(*shapes[1])),
                RuntimeError, "^torch.linalg.householder_product: " + match)
    check_error(lambda L: L.linalg.householder_product(L.ones(4, 3, dtype=L.float64),
                                                       L.ones(2)),
                RuntimeError, "tau dtype Float does not match input dtype Double$")


# ---------------------------------------------------------------- ormqr
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("transpose", [False, True])
@pytest.mark.parametrize("shape, k, other", [((5, 3), 3, (5, 2)), ((5, 3), 3, (5, 4)),
                                             ((4, 4), 4, (4, 4)), ((4, 2), 2, (4, 3)),
                                             ((2, 6, 3), 3, (2, 6, 2)), ((0, 0), 0, (0, 2))])
def test_ormqr(shape, k, other, left, transpose, dtype):
    """op(Q) @ C or C @ op(Q) for the reflectors (a, tau): values and gradients of all three."""
    tau = rng(7).uniform(0.2, 1.8, shape[:-2] + (k,)).astype(dtype)
    if not left:
        other = other[:-2] + other[-2:][::-1]
    check(lambda L, a, t, c: L.ormqr(a, t, c, left, transpose), shape, tau, other, dtype=dtype)
    check(lambda L, a, t, c: a.ormqr(t, c, left=left, transpose=transpose), shape, tau, other,
          dtype=dtype, grad=False)


def test_ormqr_applies_geqrf_q():
    def apply(L, a, c):
        compact, tau = L.geqrf(a)
        return [L.ormqr(compact, tau, c), L.ormqr(compact, tau, c.mT, left=False,
                                                  transpose=True)]
    check(apply, (5, 3), (5, 2), dtype="float64", grad=False)


@pytest.mark.parametrize("call, match", [
    (lambda L: L.ormqr(L.ones(5, 3, dtype=L.float64), L.ones(3, dtype=L.float64),
                       L.ones(4, 2, dtype=L.float64)),
     r"torch.ormqr: other.shape\[-2\] must be equal to input.shape\[-2\]"),
    (lambda L: L.ormqr(L.ones(5, 3, dtype=L.float64), L.ones(3, dtype=L.float64),
                       L.ones(5, 2)),
     r"torch.ormqr: Expected input and other to have the same dtype, but input has "
     r"dtypeDouble and other has dtype Float"),
    (lambda L: L.ormqr(L.ones(5, 3), L.ones(2), L.ones(5, 4)),
     r"torch.ormqr: tau.shape\[-1\] must be equal to min\(other.shape\[-2\], input.shape\[-1\]\)"),
])
def test_ormqr_errors(call, match):
    check_error(call, RuntimeError, match)
