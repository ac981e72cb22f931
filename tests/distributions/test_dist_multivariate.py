"""MultivariateNormal, LowRankMultivariateNormal, Dirichlet, Independent, LogisticNormal and
LKJCholesky against torch. (Sampling is in test_dist_sampling.py.)"""
import numpy as np
import pytest
import torch

import ember
from dist_inputs import DTYPES, assert_like_torch, draw, evaluate
from oracle import check, check_error

N = 3


def _mvn(lib, loc, a, form):
    """A MultivariateNormal from an unconstrained matrix `a`, in one of three forms."""
    D = lib.distributions
    spd = a @ a.mT + lib.eye(N, dtype=a.dtype)
    if form == "covariance_matrix":
        return D.MultivariateNormal(loc, covariance_matrix=spd)
    if form == "precision_matrix":
        return D.MultivariateNormal(loc, precision_matrix=spd)
    tril = a.tril(-1) + lib.diag_embed(a.diagonal(dim1=-2, dim2=-1).exp())
    return D.MultivariateNormal(loc, scale_tril=tril)


FORMS = ["covariance_matrix", "precision_matrix", "scale_tril"]
QUANTITIES = ["log_prob", "entropy", "mean", "mode", "variance", "stddev",
              "covariance_matrix", "precision_matrix", "scale_tril"]
# (loc shape, matrix shape, value shape)
BATCHES = [((N,), (N, N), (N,)), ((N,), (N, N), (4, N)), ((2, N), (N, N), (5, 2, N)),
           ((N,), (2, N, N), (2, N)), ((3, 1, N), (2, N, N), (3, 2, N))]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shapes", BATCHES)
@pytest.mark.parametrize("form", FORMS)
@pytest.mark.parametrize("quantity", QUANTITIES)
def test_multivariate_normal(quantity, form, shapes, dtype):
    loc_shape, matrix_shape, value_shape = shapes
    loc, a, value = (draw("real", shape, dtype, seed) for seed, shape in enumerate(shapes))
    a = a * 0.5
    tol = {"atol": 1e-4, "rtol": 1e-3} if dtype == "float32" else {}
    check(lambda lib, loc, a, value: evaluate(_mvn(lib, loc, a, form), quantity, value),
          loc, a, value, dtype=dtype, **tol)


def test_multivariate_normal_shapes_and_repr():
    for lib in (torch, ember):
        dist = lib.distributions.MultivariateNormal(lib.zeros(2, 1, N), lib.eye(N).expand(4, N, N))
        assert dist.batch_shape == (2, 4) and dist.event_shape == (N,)
        assert dist._unbroadcasted_scale_tril.shape == (4, N, N)
        assert dist.sample((5,)).shape == (5, 2, 4, N)
    assert repr(ember.distributions.MultivariateNormal(ember.zeros(2), ember.eye(2))) == \
        repr(torch.distributions.MultivariateNormal(torch.zeros(2), torch.eye(2)))


def test_multivariate_normal_errors():
    check_error(lambda lib: lib.distributions.MultivariateNormal(lib.zeros(3)), ValueError,
                r"^Exactly one of covariance_matrix or precision_matrix or scale_tril may be")
    check_error(lambda lib: lib.distributions.MultivariateNormal(
        lib.zeros(3), lib.eye(3), scale_tril=lib.eye(3)), ValueError, r"^Exactly one of")
    check_error(lambda lib: lib.distributions.MultivariateNormal(lib.tensor(0.0), lib.eye(3)),
                ValueError, r"^loc must be at least one-dimensional\.")
    for form in FORMS:
        prefix = "scale_tril matrix" if form == "scale_tril" else form
        check_error(lambda lib: lib.distributions.MultivariateNormal(
            lib.zeros(3), **{form: lib.ones(3)}), ValueError,
            f"^{prefix} must be at least two-dimensional, with optional leading batch")
    check_error(lambda lib: lib.distributions.MultivariateNormal(
        lib.zeros(2), lib.tensor([[1.0, 2.0], [2.0, 1.0]])), ValueError,
        r"^Expected parameter covariance_matrix \(Tensor of shape \(2, 2\)\) of distribution "
        r"MultivariateNormal\(loc: torch.Size\(\[2\]\), covariance_matrix: torch.Size\(\[2, 2\]\)"
        r"\) to satisfy the constraint PositiveDefinite\(\), but found invalid values:")
    check_error(lambda lib: lib.distributions.MultivariateNormal(
        lib.zeros(2), scale_tril=lib.tensor([[1.0, 1.0], [0.0, 1.0]])), ValueError,
        r"to satisfy the constraint LowerCholesky\(\), but found invalid values:")
    check_error(lambda lib: lib.distributions.MultivariateNormal(
        lib.zeros(3), lib.eye(3)).log_prob(lib.zeros(2)), ValueError,
        r"^The right-most size of value must match event_shape: torch.Size\(\[2\]\) vs "
        r"torch.Size\(\[3\]\)\.")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("batch", [(), (4,), (2, 3)])
@pytest.mark.parametrize("quantity", ["log_prob", "entropy", "mean", "mode", "variance"])
def test_dirichlet(quantity, batch, dtype):
    concentration = draw("positive", batch + (4,), dtype)
    value = draw("positive", (2,) + batch + (4,), dtype, seed=3)
    value = value / value.sum(-1, keepdims=True)

    def fn(lib, concentration, value):
        dist = lib.distributions.Dirichlet(concentration)
        return evaluate(dist, quantity, value)
    check(fn, concentration, value, dtype=dtype, grad_inputs=[0])


def test_dirichlet_mode_below_one_is_a_vertex():
    concentration = np.array([[0.5, 0.7, 0.3], [2.0, 3.0, 0.5], [0.5, 2.0, 0.9]])
    check(lambda lib, c: lib.distributions.Dirichlet(c).mode, concentration, dtype="float64",
          grad=False)


def test_dirichlet_errors():
    check_error(lambda lib: lib.distributions.Dirichlet(lib.tensor(1.0)), ValueError,
                r"^`concentration` parameter must be at least one-dimensional\.")
    check_error(lambda lib: lib.distributions.Dirichlet(lib.ones(3)).log_prob(
        lib.tensor([0.5, 0.6, 0.1])), ValueError,
        r"^Expected value argument \(Tensor of shape \(3,\)\) to be within the support "
        r"\(Simplex\(\)\) of the distribution Dirichlet\(concentration: torch.Size\(\[3\]\)\)")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("ndims", [0, 1, 2])
@pytest.mark.parametrize("quantity", ["log_prob", "entropy", "mean", "mode", "variance"])
def test_independent_normal(quantity, ndims, dtype):
    loc, scale = draw("real", (2, 3, 4), dtype), draw("positive", (2, 3, 4), dtype, seed=1)
    value = draw("real", (5, 2, 3, 4), dtype, seed=2)

    def fn(lib, loc, scale, value):
        dist = lib.distributions.Independent(lib.distributions.Normal(loc, scale), ndims)
        return evaluate(dist, quantity, value)
    check(fn, loc, scale, value, dtype=dtype)


def test_independent_shapes_support_and_repr():
    for lib in (torch, ember):
        D = lib.distributions
        dist = D.Independent(D.Normal(lib.zeros(2, 3, 4), 1.0), 2)
        assert dist.batch_shape == (2,) and dist.event_shape == (3, 4)
        assert dist.support.event_dim == 2 and dist.has_rsample
        assert dist.rsample((5,)).shape == (5, 2, 3, 4)
        assert dist.expand((6, 2)).batch_shape == (6, 2)
        assert not D.Independent(D.Bernoulli(lib.ones(2, 3) / 2), 1).has_enumerate_support
    D = ember.distributions
    assert repr(D.Independent(D.Normal(ember.zeros(2, 3), 1.0), 1)) == \
        "Independent(Normal(loc: torch.Size([2, 3]), scale: torch.Size([2, 3])), 1)"


def test_independent_errors():
    check_error(lambda lib: lib.distributions.Independent(lib.distributions.Normal(0.0, 1.0), 1),
                ValueError, r"^Expected reinterpreted_batch_ndims <= "
                r"len\(base_distribution.batch_shape\), actual 1 vs 0")
    check_error(lambda lib: lib.distributions.Independent(
        lib.distributions.Bernoulli(lib.ones(2, 3) / 2), 1).enumerate_support(),
        NotImplementedError, "^Enumeration over cartesian product is not implemented")


# ------------------------------------------------------------------ LowRankMultivariateNormal

LOWRANK_QUANTITIES = ["log_prob", "entropy", "variance", "mean", "mode", "scale_tril",
                      "covariance_matrix", "precision_matrix"]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("quantity", LOWRANK_QUANTITIES)
@pytest.mark.parametrize("shapes", [[(4,), (4, 2), (4,), (4,)],
                                    [(3, 4), (4, 2), (2, 1, 4), (5, 1, 1, 4)]])
def test_lowrank_quantities(quantity, shapes, dtype):
    loc = draw("real", shapes[0], dtype)
    factor = draw("real", shapes[1], dtype, seed=1)
    diag = draw("positive", shapes[2], dtype, seed=2)
    value = draw("real", shapes[3], dtype, seed=3)

    check(lambda lib, loc, factor, diag, v: evaluate(
        lib.distributions.LowRankMultivariateNormal(loc, factor, diag), quantity, v),
        loc, factor, diag, value, dtype=dtype, atol=1e-4 if dtype == "float32" else None)


def test_lowrank_matches_full_multivariate_normal():
    loc, factor = draw("real", (2, 3), "float64"), draw("real", (3, 2), "float64", seed=1)
    diag = draw("positive", (3,), "float64", seed=2)
    value = draw("real", (5, 2, 3), "float64", seed=3)
    lowrank = ember.distributions.LowRankMultivariateNormal(
        *map(ember.tensor, (loc, factor, diag)))
    full = ember.distributions.MultivariateNormal(
        ember.tensor(loc), covariance_matrix=ember.tensor(factor @ factor.T + np.diag(diag)))
    np.testing.assert_allclose(lowrank.log_prob(ember.tensor(value)).numpy(),
                               full.log_prob(ember.tensor(value)).numpy(), rtol=1e-10)


def test_lowrank_shapes_and_errors():
    t = torch.distributions.LowRankMultivariateNormal(torch.zeros(2, 3), torch.ones(3, 1),
                                                      torch.ones(3))
    e = ember.distributions.LowRankMultivariateNormal(ember.zeros(2, 3), ember.ones(3, 1),
                                                      ember.ones(3))
    assert_like_torch(t, e, expanded_shape=(5, 2))

    def build(*shapes):
        return lambda lib: lib.distributions.LowRankMultivariateNormal(
            *[lib.ones(shape) for shape in shapes])
    check_error(build((), (3, 1), (3,)), ValueError, "^loc must be at least one-dimensional")
    check_error(build((3,), (3,), (3,)), ValueError,
                "^cov_factor must be at least two-dimensional")
    check_error(build((3,), (2, 1), (3,)), ValueError,
                "^cov_factor must be a batch of matrices with shape 3 x m")
    check_error(build((3,), (3, 1), (2,)), ValueError,
                r"^cov_diag must be a batch of vectors with shape torch\.Size\(\[3\]\)")
    check_error(build((2, 3), (4, 3, 1), (3,)), ValueError, "^Incompatible batch shapes")


# ------------------------------------------------------------------ LogisticNormal

@pytest.mark.parametrize("dtype", DTYPES)
def test_logistic_normal(dtype):
    loc, scale = draw("real", (2, 3), dtype), draw("positive", (3,), dtype, seed=1)
    value = np.array([[0.1, 0.2, 0.3, 0.4], [0.4, 0.3, 0.2, 0.1]], dtype=dtype)
    check(lambda lib, loc, scale, v: lib.distributions.LogisticNormal(loc, scale).log_prob(v),
          loc, scale, value, dtype=dtype)
    t = torch.distributions.LogisticNormal(torch.zeros(3), torch.ones(3))
    e = ember.distributions.LogisticNormal(ember.zeros(3), ember.ones(3))
    assert_like_torch(t, e)
    assert ember.distributions.LogisticNormal(0.0, 1.0).event_shape == (2,)
    ember.manual_seed(0)
    sample = e.rsample((1000,))
    assert sample.shape == (1000, 4)
    assert bool(ember.distributions.constraints.simplex.check(sample).all())


# ------------------------------------------------------------------ LKJCholesky

@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("dim,concentration_shape", [(2, ()), (3, (2,)), (4, (3, 1))])
def test_lkj_log_prob(dim, concentration_shape, dtype):
    concentration = draw("wide", concentration_shape, dtype)
    x = draw("real", (2, 1, 1, dim * (dim - 1) // 2), dtype, seed=1)
    # Valid values: correlation Cholesky factors made by the transform.
    value = torch.distributions.transforms.CorrCholeskyTransform()(
        torch.from_numpy(x)).numpy()
    check(lambda lib, c, v: lib.distributions.LKJCholesky(dim, c).log_prob(v), concentration,
          value, dtype=dtype, grad_inputs=[0])


def test_lkj_like_torch_and_errors():
    t = torch.distributions.LKJCholesky(3, torch.tensor([0.5, 2.0]))
    e = ember.distributions.LKJCholesky(3, ember.tensor([0.5, 2.0]))
    assert_like_torch(t, e)
    assert repr(e.support) == "CorrCholesky()" and e.expand((5, 2)).dim == 3
    check_error(lambda lib: lib.distributions.LKJCholesky(1, 1.0), ValueError,
                "^Expected dim to be an integer greater than or equal to 2. Found dim=1.")
    check_error(lambda lib: lib.distributions.LKJCholesky(3, -1.0), ValueError,
                "^Expected parameter concentration")
