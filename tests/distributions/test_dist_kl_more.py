"""kl_divergence for the pairs torch registers among Cauchy, Geometric, Gumbel, HalfNormal,
Pareto and the earlier distributions, against torch (values and gradients)."""
import numpy as np
import pytest

import ember
from dist_inputs import DTYPES, draw_all
from dist_more import dists
from oracle import check, check_error


def _big_alpha_pareto(D, scale, alpha):
    """alpha in (2.5, 4.5): finite mean and variance."""
    return D.Pareto(scale, alpha + 2.0)


def _unit_uniform(D, low, high):
    """A Uniform inside (0, 1), as in test_dist_kl.py."""
    return D.Uniform(low * 0.45 + 0.05, 1 - high * 0.45 - 0.05)


def _shifted_uniform(D, low, high):
    """A Uniform inside (3, 5), above every Pareto scale drawn from "positive"."""
    return D.Uniform(low + 3.0, high + 4.0)


# name -> (constructor from parameter tensors, parameter kinds)
FAMILIES = {
    "Cauchy": (lambda D, a, b: D.Cauchy(a, b), ["real", "positive"]),
    "Geometric": (lambda D, p: D.Geometric(p), ["unit"]),
    "GeometricLogits": (lambda D, p: D.Geometric(logits=p), ["real"]),
    "Gumbel": (lambda D, a, b: D.Gumbel(a, b), ["real", "positive"]),
    "HalfNormal": (lambda D, s: D.HalfNormal(s), ["positive"]),
    "Pareto": (lambda D, s, a: D.Pareto(s, a), ["positive", "positive"]),
    "ParetoFinite": (_big_alpha_pareto, ["positive", "positive"]),
    "Normal": (lambda D, a, b: D.Normal(a, b), ["real", "positive"]),
    "Exponential": (lambda D, r: D.Exponential(r), ["positive"]),
    "Gamma": (lambda D, a, b: D.Gamma(a, b), ["positive", "positive"]),
    "Beta": (lambda D, a, b: D.Beta(a, b), ["positive", "positive"]),
    "Laplace": (lambda D, a, b: D.Laplace(a, b), ["real", "positive"]),
    "Uniform": (_unit_uniform, ["unit", "unit"]),
    "UniformAboveScale": (_shifted_uniform, ["unit", "unit"]),
}
SAME_FAMILY = ["Cauchy", "Geometric", "GeometricLogits", "Gumbel", "HalfNormal", "Pareto"]
CROSS_PAIRS = [
    ("Exponential", "Gumbel"), ("Gamma", "Gumbel"), ("Normal", "Gumbel"),
    ("Uniform", "Gumbel"), ("Gumbel", "Normal"),
    # alpha in (0.5, 2.5): some divergences are infinite (mean or variance infinite)
    ("Pareto", "Exponential"), ("Pareto", "Gamma"), ("Pareto", "Normal"),
    ("ParetoFinite", "Exponential"), ("ParetoFinite", "Gamma"), ("ParetoFinite", "Normal"),
    ("UniformAboveScale", "Pareto"), ("Uniform", "Pareto"),
    # infinite: p has mass where q has none
    ("Beta", "Pareto"), ("Exponential", "Pareto"), ("Gamma", "Pareto"), ("Gumbel", "Beta"),
    ("Gumbel", "Exponential"), ("Gumbel", "Gamma"), ("Gumbel", "Pareto"),
    ("Gumbel", "Uniform"), ("Laplace", "Pareto"), ("Normal", "Pareto"), ("Pareto", "Beta"),
    ("Pareto", "Uniform"),
]


def _kl(lib, p_build, q_build, k, xs):
    D = dists(lib)
    return D.kl_divergence(p_build(D, *xs[:k]), q_build(D, *xs[k:]))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shapes", [((), ()), ((3,), (3,)), ((2, 1), (3,))])
@pytest.mark.parametrize("name", SAME_FAMILY)
def test_kl_same_family(name, shapes, dtype):
    build, kinds = FAMILIES[name]
    p_params = draw_all(kinds, [shapes[0]] * len(kinds), dtype, seed=0)
    q_params = draw_all(kinds, [shapes[1]] * len(kinds), dtype, seed=5)
    check(lambda lib, *xs: _kl(lib, build, build, len(kinds), xs), *p_params, *q_params,
          dtype=dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("p_name,q_name", CROSS_PAIRS)
def test_kl_different_families(p_name, q_name, dtype):
    (build_p, kinds_p), (build_q, kinds_q) = FAMILIES[p_name], FAMILIES[q_name]
    p_params = draw_all(kinds_p, [(4,)] * len(kinds_p), dtype, seed=0)
    q_params = draw_all(kinds_q, [(4,)] * len(kinds_q), dtype, seed=5)
    # float32 loses digits in the cancellations of the Gumbel and Pareto formulas.
    tol = {"atol": 1e-4, "rtol": 1e-4} if dtype == "float32" else {}
    check(lambda lib, *xs: _kl(lib, build_p, build_q, len(kinds_p), xs), *p_params,
          *q_params, dtype=dtype, **tol)


def test_kl_pareto_below_the_other_scale_is_infinite():
    check(lambda lib, ps, qs: dists(lib).kl_divergence(
        dists(lib).Pareto(ps, 3.0), dists(lib).Pareto(qs, 2.0)),
          np.array([1.0, 2.0, 3.0]), np.array([2.0, 2.0, 2.0]), dtype="float64", grad=False)
    check(lambda lib, low: dists(lib).kl_divergence(
        dists(lib).Uniform(low, 4.0), dists(lib).Pareto(2.0, 3.0)),
          np.array([1.0, 2.0, 3.0]), dtype="float64", grad=False, atol=1e-6)


def test_kl_half_normal_is_the_normal_kl():
    D = dists(ember)
    p, q = ember.tensor([0.5, 2.0]), ember.tensor([1.0, 1.5])
    np.testing.assert_allclose(D.kl_divergence(D.HalfNormal(p), D.HalfNormal(q)).numpy(),
                               D.kl_divergence(D.Normal(0.0, p), D.Normal(0.0, q)).numpy())


def test_kl_between_different_transformed_families_is_not_implemented():
    """Gumbel and HalfNormal are TransformedDistributions with different transforms."""
    check_error(lambda lib: dists(lib).kl_divergence(dists(lib).Gumbel(0.0, 1.0),
                                                     dists(lib).HalfNormal(1.0)),
                NotImplementedError)
