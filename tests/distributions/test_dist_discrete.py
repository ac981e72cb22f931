"""Discrete distributions (Bernoulli, Categorical, OneHotCategorical, Poisson, Binomial)
against torch: log_prob, entropy, moments, enumerate_support and gradients."""
import numpy as np
import pytest
import torch

import ember
import ember.distributions  # noqa: F401  (binds ember.distributions)
from dist_inputs import DTYPES, draw
from oracle import check, check_error

BATCHES = [(), (4,), (2, 3)]


def _binary(shape):
    return (np.random.default_rng(5).uniform(size=shape) < 0.5).astype("float64")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("batch", BATCHES)
@pytest.mark.parametrize("param", ["probs", "logits"])
@pytest.mark.parametrize("quantity", ["log_prob", "entropy", "mean", "mode", "variance",
                                      "stddev", "perplexity"])
def test_bernoulli(quantity, param, batch, dtype):
    p = draw("unit" if param == "probs" else "real", batch, dtype)
    value = _binary((3,) + batch).astype(dtype)

    def fn(lib, p, value):
        dist = lib.distributions.Bernoulli(**{param: p})
        if quantity == "log_prob":
            return dist.log_prob(value)
        if quantity in ("entropy", "perplexity"):
            return getattr(dist, quantity)()
        return getattr(dist, quantity)
    check(fn, p, value, dtype=dtype, grad_inputs=[0])


def test_bernoulli_extreme_probs_and_half_mode():
    probs = np.array([0.0, 0.5, 1.0, 0.3])
    value = np.array([0.0, 1.0, 1.0, 0.0])
    check(lambda lib, p, v: lib.distributions.Bernoulli(p).log_prob(v), probs, value,
          dtype="float64", grad=False)
    check(lambda lib, p: lib.distributions.Bernoulli(p).mode, probs, dtype="float64",
          grad=False)
    check(lambda lib, p: lib.distributions.Bernoulli(p).entropy(), probs, dtype="float64",
          grad=False)


@pytest.mark.parametrize("expand", [True, False])
@pytest.mark.parametrize("name", ["Bernoulli", "Categorical", "OneHotCategorical"])
def test_enumerate_support(name, expand):
    probs = draw("unit", (2, 3), "float32")
    check(lambda lib, p: getattr(lib.distributions, name)(p).enumerate_support(expand), probs,
          grad=False)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("batch", BATCHES)
@pytest.mark.parametrize("param", ["probs", "logits"])
@pytest.mark.parametrize("quantity", ["log_prob", "entropy", "mode", "mean", "variance",
                                      "probs", "logits"])
def test_categorical(quantity, param, batch, dtype):
    raw = draw("unit" if param == "probs" else "real", batch + (5,), dtype)
    value = np.random.default_rng(3).integers(0, 5, (2,) + batch)

    def fn(lib, raw, value):
        dist = lib.distributions.Categorical(**{param: raw})
        if quantity == "log_prob":
            return dist.log_prob(value)
        if quantity == "entropy":
            return dist.entropy()
        return getattr(dist, quantity)
    check(fn, raw, value, dtype=dtype, grad_inputs=[0])


def test_categorical_zero_probability_entropy():
    """A zero probability contributes 0, not nan, to the entropy (logits are clamped)."""
    probs = np.array([[0.0, 0.3, 0.7], [0.5, 0.5, 0.0]])
    check(lambda lib, p: lib.distributions.Categorical(p).entropy(), probs, dtype="float64")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("batch", BATCHES)
@pytest.mark.parametrize("quantity", ["log_prob", "entropy", "mode", "mean", "variance"])
def test_one_hot_categorical(quantity, batch, dtype):
    probs = draw("unit", batch + (4,), dtype)
    indices = np.random.default_rng(3).integers(0, 4, (2,) + batch)
    value = np.eye(4, dtype=dtype)[indices]

    def fn(lib, probs, value):
        dist = lib.distributions.OneHotCategorical(probs)
        if quantity == "log_prob":
            return dist.log_prob(value)
        if quantity == "entropy":
            return dist.entropy()
        return getattr(dist, quantity)
    check(fn, probs, value, dtype=dtype, grad_inputs=[0])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("batch", BATCHES)
@pytest.mark.parametrize("quantity", ["log_prob", "mean", "mode", "variance"])
def test_poisson(quantity, batch, dtype):
    rate = draw("positive", batch, dtype) * 3
    value = np.random.default_rng(3).integers(0, 8, (2,) + batch).astype(dtype)

    def fn(lib, rate, value):
        dist = lib.distributions.Poisson(rate)
        return dist.log_prob(value) if quantity == "log_prob" else getattr(dist, quantity)
    check(fn, rate, value, dtype=dtype, grad_inputs=[0])


def test_poisson_zero_rate():
    check(lambda lib, r: lib.distributions.Poisson(r).log_prob(lib.tensor([0.0, 0.0, 2.0])),
          np.array([0.0, 1.5, 0.0]), dtype="float64", grad=False)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("batch", BATCHES)
@pytest.mark.parametrize("param", ["probs", "logits"])
@pytest.mark.parametrize("quantity", ["log_prob", "mean", "mode", "variance", "entropy"])
def test_binomial(quantity, param, batch, dtype):
    p = draw("unit" if param == "probs" else "real", batch, dtype)
    value = np.random.default_rng(3).integers(0, 6, (2,) + batch).astype(dtype)

    def fn(lib, p, value):
        dist = lib.distributions.Binomial(5, **{param: p})
        if quantity == "log_prob":
            return dist.log_prob(value)
        if quantity == "entropy":
            return dist.entropy()
        return getattr(dist, quantity)
    check(fn, p, value, dtype=dtype, grad_inputs=[0])


def test_binomial_tensor_total_count():
    counts = np.array([[3.0], [7.0]])
    probs = draw("unit", (4,), "float64")
    value = np.array([[0.0, 1.0, 2.0, 3.0], [7.0, 0.0, 4.0, 5.0]])
    check(lambda lib, n, p, v: lib.distributions.Binomial(n, p).log_prob(v), counts, probs,
          value, dtype="float64", grad_inputs=[1])
    check(lambda lib, n, p: lib.distributions.Binomial(n, p).mode, counts, probs,
          dtype="float64", grad=False)


def test_binomial_inhomogeneous_total_count_errors():
    for method in ("entropy", "enumerate_support"):
        check_error(lambda lib: getattr(lib.distributions.Binomial(
            lib.tensor([2.0, 3.0]), lib.tensor([0.5, 0.5])), method)(), NotImplementedError,
            f"^Inhomogeneous total count not supported by `{method}`")


@pytest.mark.parametrize("name", ["Bernoulli", "Categorical", "OneHotCategorical", "Binomial"])
def test_probs_and_logits_exclusive(name):
    check_error(lambda lib: getattr(lib.distributions, name)(probs=lib.ones(2) / 2,
                                                             logits=lib.ones(2)),
                ValueError, r"^Either `probs` or `logits` must be specified, but not both\.")
    check_error(lambda lib: getattr(lib.distributions, name)(), ValueError,
                r"^Either `probs` or `logits` must be specified, but not both\.")


@pytest.mark.parametrize("param", ["probs", "logits"])
def test_categorical_needs_a_dimension(param):
    check_error(lambda lib: lib.distributions.Categorical(**{param: lib.tensor(1.0)}),
                ValueError, f"^`{param}` parameter must be at least one-dimensional\\.")


def test_categorical_probs_are_normalised():
    probs = np.array([[1.0, 2.0, 1.0], [3.0, 3.0, 4.0]], dtype="float32")
    check(lambda lib, p: lib.distributions.Categorical(probs=p).probs, probs)
    check(lambda lib, p: lib.distributions.Categorical(logits=p).logits, probs)


def test_integer_outputs_do_not_require_grad():
    probs = ember.tensor([0.2, 0.8], requires_grad=True)
    assert not ember.distributions.Categorical(probs).mode.requires_grad
    assert not ember.distributions.Categorical(probs).sample((3,)).requires_grad
    assert not ember.distributions.Bernoulli(probs).sample().requires_grad
    assert ember.distributions.Categorical(probs).sample((3,)).dtype == ember.int64
    assert torch.distributions.Categorical(torch.tensor([0.2, 0.8])).sample().dtype == \
        torch.int64
