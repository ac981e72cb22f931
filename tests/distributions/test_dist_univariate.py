"""Continuous univariate distributions (Normal, Laplace, Exponential, Uniform, LogNormal,
Gamma, Beta): every deterministic quantity and its gradients against torch."""
import numpy as np
import pytest

import ember
import ember.distributions  # noqa: F401  (binds ember.distributions)

from dist_inputs import DTYPES, draw, draw_all
from oracle import check, check_error

# name -> (constructor, parameter kinds, kind of value in the support, quantities torch has)
COMMON = ["mean", "mode", "variance", "stddev", "entropy", "log_prob"]
DISTRIBUTIONS = {
    "Normal": (lambda D, a, b: D.Normal(a, b), ["real", "positive"], "real",
               COMMON + ["cdf", "icdf"]),
    "Laplace": (lambda D, a, b: D.Laplace(a, b), ["real", "positive"], "real",
                COMMON + ["cdf", "icdf"]),
    "Exponential": (lambda D, a: D.Exponential(a), ["positive"], "positive",
                    COMMON + ["cdf", "icdf"]),
    "Uniform": (lambda D, a, b: D.Uniform(a, b), ["low", "high"], "inner",
                COMMON + ["cdf", "icdf"]),
    "LogNormal": (lambda D, a, b: D.LogNormal(a, b), ["real", "positive"], "positive",
                  COMMON + ["cdf", "icdf"]),
    "Gamma": (lambda D, a, b: D.Gamma(a, b), ["positive", "positive"], "positive",
              COMMON + ["cdf"]),
    "Beta": (lambda D, a, b: D.Beta(a, b), ["positive", "positive"], "unit", COMMON),
}
CASES = [(name, q) for name, entry in DISTRIBUTIONS.items() for q in entry[3]]
# parameter shapes -> value shape (a sample dimension in front of the batch shape)
SHAPES = [
    ([(), ()], (3,)),
    ([(4,), (4,)], (2, 4)),
    ([(3, 1), (4,)], (3, 4)),
    ([(2, 3), (2, 3)], (2, 3)),
]


def _quantity(D, build, name, params, value):
    dist = build(D, *params)
    if name in ("log_prob", "cdf", "icdf"):
        return getattr(dist, name)(value)
    if name == "entropy":
        return dist.entropy()
    return getattr(dist, name)


def _value_kind(entry, quantity):
    return "unit" if quantity == "icdf" else entry[2]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("param_shapes,value_shape", SHAPES)
@pytest.mark.parametrize("name,quantity", CASES)
def test_quantity_and_gradients(name, quantity, param_shapes, value_shape, dtype):
    entry = DISTRIBUTIONS[name]
    build, kinds = entry[0], entry[1]
    params = draw_all(kinds, param_shapes[:len(kinds)], dtype)
    value = draw(_value_kind(entry, quantity), value_shape, dtype, seed=10)
    # torch cannot differentiate the incomplete gamma function in its shape parameter.
    grad_inputs = [1, 2] if (name, quantity) == ("Gamma", "cdf") else None
    check(lambda lib, *xs: _quantity(lib.distributions, build, quantity, xs[:-1], xs[-1]),
          *params, value, dtype=dtype, grad_inputs=grad_inputs)


@pytest.mark.parametrize("name", ["Normal", "Laplace", "Gamma", "Beta", "Uniform"])
def test_non_contiguous_parameters(name):
    build, kinds, value_kind, _ = DISTRIBUTIONS[name]
    params = draw_all(kinds, [(4, 3)] * len(kinds), "float64")
    value = draw(value_kind, (4, 3), "float64", seed=10)
    check(lambda lib, *xs: build(lib.distributions, *xs[:-1]).log_prob(xs[-1]),
          *params, value, dtype="float64", non_contiguous=True)


@pytest.mark.parametrize("name", list(DISTRIBUTIONS))
def test_python_number_parameters(name):
    """Numbers become default-dtype zero-dim tensors: batch_shape ()."""
    build, kinds, value_kind, _ = DISTRIBUTIONS[name]
    numbers = [float(a) for a in draw_all(kinds, [()] * len(kinds), "float64")]
    value = draw(value_kind, (5,), "float32", seed=10)
    out = check(lambda lib, v: build(lib.distributions, *numbers).log_prob(v), value)
    assert out.shape == (5,)
    check(lambda lib: build(lib.distributions, *numbers).entropy(), grad=False)


@pytest.mark.parametrize("name", [n for n in DISTRIBUTIONS if n != "Beta"])
def test_empty_batch(name):
    build, kinds, value_kind, _ = DISTRIBUTIONS[name]
    params = draw_all(kinds, [(0, 3)] * len(kinds), "float32")
    value = draw(value_kind, (0, 3), "float32", seed=10)
    check(lambda lib, *xs: build(lib.distributions, *xs[:-1]).log_prob(xs[-1]),
          *params, value)


def test_beta_empty_batch():
    """torch 2.13 bug: its simplex-parameter check reshapes an empty (0, 3, 2) tensor to
    (0, 3, -1) and raises RuntimeError; the right answer is an empty log_prob."""
    zeros = ember.zeros(0, 3)
    log_prob = ember.distributions.Beta(zeros + 1, zeros + 2).log_prob(zeros + 0.5)
    assert log_prob.shape == (0, 3) and log_prob.dtype == ember.float32


def test_gamma_log_prob_at_zero():
    """xlogy keeps concentration 1 finite at x = 0, and gives -inf / +inf otherwise."""
    conc = np.array([0.5, 1.0, 2.0])
    check(lambda lib, c: lib.distributions.Gamma(c, 1.5).log_prob(lib.zeros(3)), conc,
          dtype="float64", grad=False)


def test_gamma_cdf_extremes_and_concentration_gradient():
    concentration = np.array([0.01, 0.5, 1.0, 3.0, 50.0, 400.0])
    value = np.array([1e-3, 0.2, 1.0, 9.0, 45.0, 430.0])
    check(lambda lib, c, v: lib.distributions.Gamma(c, 1.0).cdf(v), concentration, value,
          dtype="float64", grad_inputs=[1])
    check(lambda lib, v: lib.distributions.Gamma(2.0, 1.0).cdf(v), np.array([0.0, np.inf]),
          dtype="float64", grad=False)
    check_error(lambda lib: lib.distributions.Gamma(
        lib.tensor([2.0], requires_grad=True), 1.0).cdf(lib.tensor([1.0])).sum().backward(),
        NotImplementedError, "^the derivative for 'igamma: input' is not implemented")


def test_uniform_outside_support_without_validation():
    check(lambda lib, v: lib.distributions.Uniform(0.0, 1.0, validate_args=False).log_prob(v),
          np.array([-0.5, 0.0, 0.5, 1.0, 1.5], dtype="float32"), grad=False)
    check(lambda lib, v: lib.distributions.Uniform(0.0, 1.0, validate_args=False).cdf(v),
          np.array([-0.5, 0.5, 1.5], dtype="float32"), grad=False)


def test_laplace_cdf_icdf_round_trip():
    check(lambda lib, p: lib.distributions.Laplace(1.0, 2.0).cdf(
        lib.distributions.Laplace(1.0, 2.0).icdf(p)),
        np.array([0.01, 0.3, 0.5, 0.7, 0.99]), dtype="float64")
