"""kl_divergence and register_kl against torch: every pair torch registers, within a family
and across families, values and gradients."""
import numpy as np
import pytest
import torch

import ember
from dist_inputs import DTYPES, draw, draw_all
from oracle import check, check_error


def _unit_uniform(D, low, high):
    """A Uniform inside (0, 1): low in (0.05, 0.5), high in (0.5, 0.95)."""
    return D.Uniform(low * 0.45 + 0.05, 1 - high * 0.45 - 0.05)


def _shifted_uniform(D, low, high):
    """A Uniform inside (3, 5), above every Pareto scale drawn from "positive"."""
    return D.Uniform(low + 3.0, high + 4.0)


def _big_alpha_pareto(D, scale, alpha):
    """alpha in (2.5, 4.5): finite mean and variance."""
    return D.Pareto(scale, alpha + 2.0)


# name -> (constructor from parameter tensors, parameter kinds, parameter shape suffix)
FAMILIES = {
    "Normal": (lambda D, a, b: D.Normal(a, b), ["real", "positive"], ()),
    "Bernoulli": (lambda D, p: D.Bernoulli(p), ["unit"], ()),
    "Categorical": (lambda D, p: D.Categorical(p), ["unit"], (4,)),
    "OneHotCategorical": (lambda D, p: D.OneHotCategorical(p), ["unit"], (4,)),
    "Exponential": (lambda D, r: D.Exponential(r), ["positive"], ()),
    "Laplace": (lambda D, a, b: D.Laplace(a, b), ["real", "positive"], ()),
    "Beta": (lambda D, a, b: D.Beta(a, b), ["positive", "positive"], ()),
    "Gamma": (lambda D, a, b: D.Gamma(a, b), ["positive", "positive"], ()),
    "Dirichlet": (lambda D, c: D.Dirichlet(c), ["positive"], (4,)),
    "Poisson": (lambda D, r: D.Poisson(r), ["positive"], ()),
    "LogNormal": (lambda D, a, b: D.LogNormal(a, b), ["real", "positive"], ()),
    "IndependentNormal": (lambda D, a, b: D.Independent(D.Normal(a, b), 1),
                          ["real", "positive"], (4,)),
    "Cauchy": (lambda D, a, b: D.Cauchy(a, b), ["real", "positive"], ()),
    "Geometric": (lambda D, p: D.Geometric(p), ["unit"], ()),
    "GeometricLogits": (lambda D, p: D.Geometric(logits=p), ["real"], ()),
    "Gumbel": (lambda D, a, b: D.Gumbel(a, b), ["real", "positive"], ()),
    "HalfNormal": (lambda D, s: D.HalfNormal(s), ["positive"], ()),
    "Pareto": (lambda D, s, a: D.Pareto(s, a), ["positive", "positive"], ()),
    # used across families only
    "ParetoFinite": (_big_alpha_pareto, ["positive", "positive"], ()),
    "Uniform": (_unit_uniform, ["unit", "unit"], ()),
    "UniformAboveScale": (_shifted_uniform, ["unit", "unit"], ()),
    "Binomial": (lambda D, p: D.Binomial(5, p), ["unit"], ()),
}
SAME_FAMILY = ["Normal", "Bernoulli", "Categorical", "OneHotCategorical", "Exponential",
               "Laplace", "Beta", "Gamma", "Dirichlet", "Poisson", "LogNormal",
               "IndependentNormal", "Cauchy", "Geometric", "GeometricLogits", "Gumbel",
               "HalfNormal", "Pareto"]


def _kl(lib, p_name, q_name, xs):
    """kl_divergence(p, q) for FAMILIES entries, p's parameters first in xs."""
    (build_p, kinds_p, _), (build_q, _, _) = FAMILIES[p_name], FAMILIES[q_name]
    D = lib.distributions
    k = len(kinds_p)
    return D.kl_divergence(build_p(D, *xs[:k]), build_q(D, *xs[k:]))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shapes", [((), ()), ((3,), (3,)), ((2, 1), (3,))])
@pytest.mark.parametrize("name", SAME_FAMILY)
def test_kl_same_family(name, shapes, dtype):
    _, kinds, suffix = FAMILIES[name]
    p_params = draw_all(kinds, [shapes[0] + suffix] * len(kinds), dtype, seed=0)
    q_params = draw_all(kinds, [shapes[1] + suffix] * len(kinds), dtype, seed=5)
    if name == "Bernoulli":
        # torch 2.13 bug: its Bernoulli KL writes inf through a mask of q's shape and
        # raises IndexError when p and q broadcast; compare on pre-broadcast parameters
        # (test_kl_bernoulli_broadcasts checks ember's broadcasting).
        broadcast = np.broadcast_arrays(*p_params, *q_params)
        p_params, q_params = broadcast[:1], broadcast[1:]
    check(lambda lib, *xs: _kl(lib, name, name, xs), *p_params, *q_params, dtype=dtype)


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

CROSS_PAIRS = [
    ("Beta", "Normal"), ("Exponential", "Normal"), ("Gamma", "Normal"), ("Laplace", "Normal"),
    ("Uniform", "Normal"), ("Beta", "Exponential"), ("Gamma", "Exponential"),
    ("Uniform", "Exponential"), ("Beta", "Gamma"), ("Exponential", "Gamma"),
    ("Uniform", "Gamma"), ("Uniform", "Beta"), ("Beta", "Uniform"), ("Normal", "Laplace"),
    ("Bernoulli", "Poisson"), ("Binomial", "Binomial"),
    ("Exponential", "Gumbel"), ("Gamma", "Gumbel"), ("Normal", "Gumbel"),
    ("Uniform", "Gumbel"), ("Gumbel", "Normal"),
    # alpha in (0.5, 2.5): some divergences are infinite (mean or variance infinite)
    ("Pareto", "Exponential"), ("Pareto", "Gamma"), ("Pareto", "Normal"),
    ("ParetoFinite", "Exponential"), ("ParetoFinite", "Gamma"), ("ParetoFinite", "Normal"),
    ("UniformAboveScale", "Pareto"), ("Uniform", "Pareto"),
    # infinite: p has mass where q has none
    ("Exponential", "Beta"), ("Exponential", "Uniform"), ("Gamma", "Beta"),
    ("Gamma", "Uniform"), ("Laplace", "Beta"), ("Laplace", "Exponential"),
    ("Laplace", "Gamma"), ("Laplace", "Uniform"), ("Normal", "Beta"),
    ("Normal", "Exponential"), ("Normal", "Gamma"), ("Normal", "Uniform"),
    ("Poisson", "Bernoulli"), ("Poisson", "Binomial"),
    ("Beta", "Pareto"), ("Exponential", "Pareto"), ("Gamma", "Pareto"), ("Gumbel", "Beta"),
    ("Gumbel", "Exponential"), ("Gumbel", "Gamma"), ("Gumbel", "Pareto"),
    ("Gumbel", "Uniform"), ("Laplace", "Pareto"), ("Normal", "Pareto"), ("Pareto", "Beta"),
    ("Pareto", "Uniform"),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("p_name,q_name", CROSS_PAIRS)
def test_kl_different_families(p_name, q_name, dtype):
    p_params = draw_all(FAMILIES[p_name][1], [(4,)] * len(FAMILIES[p_name][1]), dtype, seed=0)
    q_params = draw_all(FAMILIES[q_name][1], [(4,)] * len(FAMILIES[q_name][1]), dtype, seed=5)
    # float32 loses digits in the cancellations of the Gumbel and Pareto formulas.
    loose = dtype == "float32" and any("Gumbel" in n or "Pareto" in n for n in (p_name, q_name))
    tol = {"atol": 1e-4, "rtol": 1e-4} if loose else {}
    check(lambda lib, *xs: _kl(lib, p_name, q_name, xs), *p_params, *q_params, dtype=dtype,
          **tol)


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


def test_kl_pareto_below_the_other_scale_is_infinite():
    check(lambda lib, ps, qs: lib.distributions.kl_divergence(
        lib.distributions.Pareto(ps, 3.0), lib.distributions.Pareto(qs, 2.0)),
        np.array([1.0, 2.0, 3.0]), np.array([2.0, 2.0, 2.0]), dtype="float64", grad=False)
    check(lambda lib, low: lib.distributions.kl_divergence(
        lib.distributions.Uniform(low, 4.0), lib.distributions.Pareto(2.0, 3.0)),
        np.array([1.0, 2.0, 3.0]), dtype="float64", grad=False, atol=1e-6)


def test_kl_half_normal_is_the_normal_kl():
    D = ember.distributions
    p, q = ember.tensor([0.5, 2.0]), ember.tensor([1.0, 1.5])
    np.testing.assert_allclose(D.kl_divergence(D.HalfNormal(p), D.HalfNormal(q)).numpy(),
                               D.kl_divergence(D.Normal(0.0, p), D.Normal(0.0, q)).numpy())


def test_kl_between_different_transformed_families_is_not_implemented():
    """Gumbel and HalfNormal are TransformedDistributions with different transforms."""
    check_error(lambda lib: lib.distributions.kl_divergence(
        lib.distributions.Gumbel(0.0, 1.0), lib.distributions.HalfNormal(1.0)),
        NotImplementedError)


# ------------------------------------------------------------------ later families

def _lowrank(lib, loc, factor, diag):
    return lib.distributions.LowRankMultivariateNormal(loc, factor, diag)


def _full(lib, loc, factor, diag):
    """A MultivariateNormal with a covariance built from the same inputs."""
    covariance = factor @ factor.mT + lib.diag_embed(diag)
    return lib.distributions.MultivariateNormal(loc, covariance_matrix=covariance)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("p_kind,q_kind", [("lowrank", "lowrank"), ("full", "lowrank"),
                                           ("lowrank", "full")])
def test_kl_lowrank(p_kind, q_kind, dtype):
    build = {"lowrank": _lowrank, "full": _full}
    inputs = [draw("real", (2, 3), dtype), draw("real", (3, 2), dtype, seed=1),
              draw("positive", (3,), dtype, seed=2), draw("real", (3,), dtype, seed=3),
              draw("real", (2, 3, 1), dtype, seed=4), draw("positive", (2, 3), dtype, seed=5)]

    def fn(lib, *xs):
        return lib.distributions.kl_divergence(build[p_kind](lib, *xs[:3]),
                                               build[q_kind](lib, *xs[3:]))
    check(fn, *inputs, dtype=dtype, atol=1e-4 if dtype == "float32" else None)


def test_kl_lowrank_event_shape_error():
    check_error(lambda lib: lib.distributions.kl_divergence(
        _lowrank(lib, lib.zeros(3), lib.ones(3, 1), lib.ones(3)),
        _lowrank(lib, lib.zeros(2), lib.ones(2, 1), lib.ones(2))), ValueError,
        "^KL-divergence between two Low Rank Multivariate Normals with")


def _continuous_bernoulli_pair(lib, name, a, b):
    D = lib.distributions
    q_cb = D.ContinuousBernoulli(probs=b)
    pairs = {
        "cb_cb": lambda: (D.ContinuousBernoulli(logits=a), q_cb),
        "beta_cb": lambda: (D.Beta(a.exp(), b + 0.5), q_cb),
        "uniform_cb": lambda: (D.Uniform(a.sigmoid() * 0.4, 0.5 + b * 0.5), q_cb),
        "cb_exponential": lambda: (D.ContinuousBernoulli(b), D.Exponential(a.exp())),
        "cb_normal": lambda: (D.ContinuousBernoulli(b), D.Normal(a, b + 0.5)),
        "cb_uniform": lambda: (D.ContinuousBernoulli(b),
                               D.Uniform(-a.exp(), 1.0 + b)),
    }
    return pairs[name]()


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", ["cb_cb", "beta_cb", "uniform_cb", "cb_exponential",
                                  "cb_normal", "cb_uniform"])
def test_kl_continuous_bernoulli(name, dtype):
    a, b = draw("real", (2, 5), dtype), draw("probs", (5,), dtype, seed=1)
    check(lambda lib, a, b: lib.distributions.kl_divergence(
        *_continuous_bernoulli_pair(lib, name, a, b)), a, b, dtype=dtype,
        atol=1e-4 if dtype == "float32" else None, rtol=1e-3 if dtype == "float32" else None)


def test_kl_continuous_bernoulli_infinite():
    def fn(lib):
        D = lib.distributions
        cb = D.ContinuousBernoulli(lib.tensor([0.3, 0.6]))
        return (D.kl_divergence(cb, D.Pareto(lib.tensor([1.0, 2.0]), 1.0)),
                D.kl_divergence(D.Normal(lib.zeros(2), 1.0), cb),
                D.kl_divergence(D.Exponential(lib.ones(2)), cb),
                D.kl_divergence(D.Uniform(lib.tensor([-0.5, 0.2]), 0.9), cb),
                D.kl_divergence(cb, D.Uniform(lib.tensor([0.1, -1.0]), 2.0)))
    check(fn, grad=False)


def test_kl_uniform_touching_the_ends_is_finite():
    """torch answers inf for Uniform(0, 1) vs ContinuousBernoulli although the supports agree
    up to a null set; the right value is finite: -H(p) - E_p[log q]."""
    cb = ember.distributions.ContinuousBernoulli(ember.tensor(0.3, dtype=ember.float64))
    uniform = ember.distributions.Uniform(ember.tensor(0.0, dtype=ember.float64), 1.0)
    forward = ember.distributions.kl_divergence(uniform, cb)
    grid = np.linspace(0.0, 1.0, 200001)
    log_q = cb.log_prob(ember.tensor(grid)).numpy()
    np.testing.assert_allclose(forward.item(), -np.trapezoid(log_q, grid), rtol=1e-8)
    backward = ember.distributions.kl_divergence(cb, uniform)
    np.testing.assert_allclose(backward.item(), -cb.entropy().item())


# ------------------------------------------------------------------ ExponentialFamily

@pytest.mark.parametrize("dtype", DTYPES)
def test_exponential_family_entropy_and_bregman_kl(dtype):
    from ember.distributions.exp_family import ExponentialFamily
    from ember.distributions.kl import _kl_expfamily_expfamily
    from torch.distributions.kl import _kl_expfamily_expfamily as torch_bregman_kl
    logits, other = draw("real", (2, 4), dtype), draw("real", (4,), dtype, seed=1)

    def fn(lib, logits, other):
        Family = torch.distributions.ExponentialFamily if lib is torch else ExponentialFamily
        bregman_kl = torch_bregman_kl if lib is torch else _kl_expfamily_expfamily
        p = lib.distributions.ContinuousBernoulli(logits=logits)
        q = lib.distributions.ContinuousBernoulli(logits=other)
        return Family.entropy(p), bregman_kl(p, q)
    check(fn, logits, other, dtype=dtype, atol=1e-4 if dtype == "float32" else None)
    assert issubclass(ember.distributions.ContinuousBernoulli, ExponentialFamily)
    p = ember.distributions.ContinuousBernoulli(ember.tensor([0.2, 0.7], dtype=ember.float64))
    np.testing.assert_allclose(ExponentialFamily.entropy(p).detach().numpy(),
                               p.entropy().numpy(), rtol=1e-10)
    check_error(lambda lib: (torch_bregman_kl if lib is torch else _kl_expfamily_expfamily)(
        lib.distributions.ContinuousBernoulli(0.3), lib.distributions.Bernoulli(0.3)),
        NotImplementedError, "^The cross KL-divergence between different exponential families")
