"""kl_divergence and register_kl against torch."""
import numpy as np
import pytest
import torch

import ember
import ember.distributions  # noqa: F401  (binds ember.distributions)
from dist_inputs import DTYPES, draw_all
from oracle import check, check_error


def _dirichlet(D, c):
    return D.Dirichlet(c)


# name -> (constructor from parameter tensors, parameter kinds, parameter shape suffix)
PAIRS = {
    "Normal": (lambda D, a, b: D.Normal(a, b), ["real", "positive"], ()),
    "Bernoulli": (lambda D, p: D.Bernoulli(p), ["unit"], ()),
    "Categorical": (lambda D, p: D.Categorical(p), ["unit"], (4,)),
    "OneHotCategorical": (lambda D, p: D.OneHotCategorical(p), ["unit"], (4,)),
    "Exponential": (lambda D, r: D.Exponential(r), ["positive"], ()),
    "Laplace": (lambda D, a, b: D.Laplace(a, b), ["real", "positive"], ()),
    "Beta": (lambda D, a, b: D.Beta(a, b), ["positive", "positive"], ()),
    "Gamma": (lambda D, a, b: D.Gamma(a, b), ["positive", "positive"], ()),
    "Dirichlet": (_dirichlet, ["positive"], (4,)),
    "Poisson": (lambda D, r: D.Poisson(r), ["positive"], ()),
    "LogNormal": (lambda D, a, b: D.LogNormal(a, b), ["real", "positive"], ()),
    "IndependentNormal": (lambda D, a, b: D.Independent(D.Normal(a, b), 1),
                          ["real", "positive"], (4,)),
}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shapes", [((), ()), ((3,), (3,)), ((2, 1), (3,))])
@pytest.mark.parametrize("name", list(PAIRS))
def test_kl_same_family(name, shapes, dtype):
    build, kinds, suffix = PAIRS[name]
    p_params = draw_all(kinds, [shapes[0] + suffix] * len(kinds), dtype, seed=0)
    q_params = draw_all(kinds, [shapes[1] + suffix] * len(kinds), dtype, seed=5)
    if name == "Bernoulli":
        # torch 2.13 bug: its Bernoulli KL writes inf through a mask of q's shape and
        # raises IndexError when p and q broadcast; compare on pre-broadcast parameters
        # (test_kl_bernoulli_broadcasts checks ember's broadcasting).
        broadcast = np.broadcast_arrays(*p_params, *q_params)
        p_params, q_params = broadcast[:1], broadcast[1:]
    k = len(kinds)
    check(lambda lib, *xs: lib.distributions.kl_divergence(
        build(lib.distributions, *xs[:k]), build(lib.distributions, *xs[k:])),
        *p_params, *q_params, dtype=dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("batch", [((), ()), ((2,), ()), ((2, 1), (3,))])
def test_kl_multivariate_normal(batch, dtype):
    n = 3
    r = np.random.default_rng(0)
    arrays = [r.standard_normal(batch[0] + (n,)), r.standard_normal(batch[0] + (n, n)) / 2,
              r.standard_normal(batch[1] + (n,)), r.standard_normal(batch[1] + (n, n)) / 2]

    def mvn(lib, loc, a):
        return lib.distributions.MultivariateNormal(
            loc, covariance_matrix=a @ a.mT + lib.eye(n, dtype=a.dtype))
    tol = {"atol": 1e-4, "rtol": 1e-3} if dtype == "float32" else {}
    check(lambda lib, lp, ap, lq, aq: lib.distributions.kl_divergence(
        mvn(lib, lp, ap), mvn(lib, lq, aq)), *[a.astype(dtype) for a in arrays], dtype=dtype,
        **tol)


def test_kl_bernoulli_broadcasts():
    D = ember.distributions
    p, q = ember.tensor([[0.2], [0.0]]), ember.tensor([0.5, 0.0, 1.0])
    broadcast = D.kl_divergence(D.Bernoulli(p), D.Bernoulli(q))
    expanded = D.kl_divergence(D.Bernoulli(p.expand(2, 3)), D.Bernoulli(q.expand(2, 3)))
    assert broadcast.shape == (2, 3)
    np.testing.assert_array_equal(broadcast.numpy(), expanded.numpy())
    expected = torch.distributions.kl_divergence(
        torch.distributions.Bernoulli(torch.tensor([[0.2], [0.0]]).expand(2, 3)),
        torch.distributions.Bernoulli(torch.tensor([0.5, 0.0, 1.0]).expand(2, 3)))
    np.testing.assert_allclose(broadcast.numpy(), expected.numpy(), rtol=1e-6)


def test_kl_infinite_and_zero_cases():
    check(lambda lib, p, q: lib.distributions.kl_divergence(
        lib.distributions.Bernoulli(p), lib.distributions.Bernoulli(q)),
        np.array([0.0, 1.0, 0.5, 0.5, 0.0]), np.array([0.3, 0.3, 0.0, 1.0, 0.0]),
        dtype="float64", grad=False)
    check(lambda lib, p, q: lib.distributions.kl_divergence(
        lib.distributions.Categorical(p), lib.distributions.Categorical(q)),
        np.array([[0.0, 0.5, 0.5], [0.5, 0.5, 0.0]]), np.array([[0.2, 0.8, 0.0],
                                                                [0.3, 0.3, 0.4]]),
        dtype="float64", grad=False)
    check(lambda lib, pl, ph, ql, qh: lib.distributions.kl_divergence(
        lib.distributions.Uniform(pl, ph), lib.distributions.Uniform(ql, qh)),
        np.array([0.0, 0.0, -1.0]), np.array([1.0, 1.0, 1.0]), np.array([-1.0, 0.5, -2.0]),
        np.array([2.0, 1.5, 0.5]), dtype="float64")


def test_kl_unregistered_pair_raises():
    check_error(lambda lib: lib.distributions.kl_divergence(
        lib.distributions.Categorical(lib.ones(3)), lib.distributions.Normal(0.0, 1.0)),
        NotImplementedError,
        "^No KL\\(p \\|\\| q\\) is implemented for p type Categorical and q type Normal")


def test_kl_independent_mismatch_and_mvn_event_shapes():
    def independent(lib, ndims):
        return lib.distributions.Independent(lib.distributions.Normal(lib.zeros(2, 3), 1.0),
                                             ndims)
    check_error(lambda lib: lib.distributions.kl_divergence(independent(lib, 1),
                                                            independent(lib, 2)),
                NotImplementedError)
    check_error(lambda lib: lib.distributions.kl_divergence(
        lib.distributions.MultivariateNormal(lib.zeros(2), lib.eye(2)),
        lib.distributions.MultivariateNormal(lib.zeros(3), lib.eye(3))), ValueError,
        "^KL-divergence between two Multivariate Normals with")


def test_register_kl_most_specific_wins():
    D = ember.distributions

    class MyNormal(D.Normal):
        pass

    calls = []

    @D.register_kl(MyNormal, D.Normal)
    def _kl_mine(p, q):
        calls.append("mine")
        return ember.zeros(())

    try:
        D.kl_divergence(MyNormal(0.0, 1.0), D.Normal(0.0, 2.0))
        assert calls == ["mine"]
        # The base pair still applies when p is a plain Normal.
        kl = D.kl_divergence(D.Normal(0.0, 1.0), MyNormal(0.0, 2.0))
        assert calls == ["mine"]
        expected = torch.distributions.kl_divergence(torch.distributions.Normal(0.0, 1.0),
                                                     torch.distributions.Normal(0.0, 2.0))
        np.testing.assert_allclose(kl.item(), expected.item(), rtol=1e-6)
    finally:
        from ember.distributions import kl
        del kl._KL_REGISTRY[MyNormal, D.Normal]
        kl._KL_MEMOIZE.clear()


def test_register_kl_rejects_non_distributions():
    with pytest.raises(TypeError, match="^Expected type_p to be a Distribution subclass"):
        ember.distributions.register_kl(int, ember.distributions.Normal)
    with pytest.raises(TypeError, match="^Expected type_q to be a Distribution subclass"):
        ember.distributions.register_kl(ember.distributions.Normal, int)


def test_register_kl_ambiguity_warns():
    D = ember.distributions

    class A(D.Normal):
        pass

    class B(D.Normal):
        pass

    from ember.distributions import kl
    D.register_kl(A, D.Normal)(lambda p, q: ember.zeros(()))
    D.register_kl(D.Normal, B)(lambda p, q: ember.ones(()))
    try:
        with pytest.warns(RuntimeWarning, match="^Ambiguous kl_divergence\\(A, B\\)"):
            D.kl_divergence(A(0.0, 1.0), B(0.0, 1.0))
    finally:
        del kl._KL_REGISTRY[A, D.Normal]
        del kl._KL_REGISTRY[D.Normal, B]
        kl._KL_MEMOIZE.clear()


# ------------------------------------------------------------------ different families

def _unit_uniform(D, low, high):
    """A Uniform inside (0, 1): low in (0.05, 0.5), high in (0.5, 0.95)."""
    return D.Uniform(low * 0.45 + 0.05, 1 - high * 0.45 - 0.05)


CROSS = {
    "Beta": PAIRS["Beta"][:2],
    "Exponential": PAIRS["Exponential"][:2],
    "Gamma": PAIRS["Gamma"][:2],
    "Laplace": PAIRS["Laplace"][:2],
    "Normal": PAIRS["Normal"][:2],
    "Uniform": (_unit_uniform, ["unit", "unit"]),
    "Bernoulli": PAIRS["Bernoulli"][:2],
    "Poisson": PAIRS["Poisson"][:2],
    "Binomial": (lambda D, p: D.Binomial(5, p), ["unit"]),
}
CROSS_PAIRS = [
    ("Beta", "Normal"), ("Exponential", "Normal"), ("Gamma", "Normal"), ("Laplace", "Normal"),
    ("Uniform", "Normal"), ("Beta", "Exponential"), ("Gamma", "Exponential"),
    ("Uniform", "Exponential"), ("Beta", "Gamma"), ("Exponential", "Gamma"),
    ("Uniform", "Gamma"), ("Uniform", "Beta"), ("Beta", "Uniform"), ("Normal", "Laplace"),
    ("Bernoulli", "Poisson"), ("Binomial", "Binomial"),
    # infinite: p has mass where q has none
    ("Exponential", "Beta"), ("Exponential", "Uniform"), ("Gamma", "Beta"),
    ("Gamma", "Uniform"), ("Laplace", "Beta"), ("Laplace", "Exponential"),
    ("Laplace", "Gamma"), ("Laplace", "Uniform"), ("Normal", "Beta"),
    ("Normal", "Exponential"), ("Normal", "Gamma"), ("Normal", "Uniform"),
    ("Poisson", "Bernoulli"), ("Poisson", "Binomial"),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("p_name,q_name", CROSS_PAIRS)
def test_kl_different_families(p_name, q_name, dtype):
    (build_p, kinds_p), (build_q, kinds_q) = CROSS[p_name], CROSS[q_name]
    p_params = draw_all(kinds_p, [(3,)] * len(kinds_p), dtype, seed=0)
    q_params = draw_all(kinds_q, [(3,)] * len(kinds_q), dtype, seed=5)
    k = len(kinds_p)
    check(lambda lib, *xs: lib.distributions.kl_divergence(
        build_p(lib.distributions, *xs[:k]), build_q(lib.distributions, *xs[k:])),
        *p_params, *q_params, dtype=dtype)


def test_kl_uniform_partly_outside_the_support():
    """q's parameters are float32 (Python numbers): float32 rounding, hence atol."""
    low, high = np.array([-0.5, 0.1, 0.2, 0.0]), np.array([0.5, 1.5, 0.9, 1.0])
    for q in (lambda D: D.Beta(2.0, 3.0), lambda D: D.Gamma(2.0, 3.0),
              lambda D: D.Exponential(2.0)):
        check(lambda lib, lo, hi: lib.distributions.kl_divergence(
            lib.distributions.Uniform(lo, hi), q(lib.distributions)), low, high,
            dtype="float64", grad=False, atol=1e-6)
    check(lambda lib, lo, hi: lib.distributions.kl_divergence(
        lib.distributions.Beta(2.0, 3.0), lib.distributions.Uniform(lo, hi)), low, high,
        dtype="float64", grad=False, atol=1e-6)


def test_kl_binomial_total_counts():
    check(lambda lib: lib.distributions.kl_divergence(
        lib.distributions.Binomial(lib.tensor([5.0, 6.0]), lib.tensor([0.3, 0.4])),
        lib.distributions.Binomial(lib.tensor([5.0, 5.0]), lib.tensor([0.6, 0.4]))),
        grad=False)
    check_error(lambda lib: lib.distributions.kl_divergence(
        lib.distributions.Binomial(3, lib.tensor(0.3)),
        lib.distributions.Binomial(5, lib.tensor(0.3))), NotImplementedError,
        r"^KL between Binomials where q.total_count > p.total_count is not implemented")
