"""Discrete distributions (Bernoulli, Categorical, OneHotCategorical, Poisson, Binomial,
Geometric, NegativeBinomial, Multinomial) and the relaxed (Concrete) Bernoulli and one-hot
categorical against torch: log_prob, entropy, moments, enumerate_support, gradients, shapes,
reprs and validation. (Sampling is in test_dist_sampling.py.)"""
import numpy as np
import pytest
import torch

import ember
from dist_inputs import DTYPES, assert_like_torch, dists, draw, evaluate
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

    check(lambda lib, p, v: evaluate(lib.distributions.Bernoulli(**{param: p}), quantity, v),
          p, value, dtype=dtype, grad_inputs=[0])


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

    check(lambda lib, raw, v: evaluate(lib.distributions.Categorical(**{param: raw}), quantity,
                                       v), raw, value, dtype=dtype, grad_inputs=[0])


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

    check(lambda lib, p, v: evaluate(lib.distributions.OneHotCategorical(p), quantity, v),
          probs, value, dtype=dtype, grad_inputs=[0])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("batch", BATCHES)
@pytest.mark.parametrize("quantity", ["log_prob", "mean", "mode", "variance"])
def test_poisson(quantity, batch, dtype):
    rate = draw("positive", batch, dtype) * 3
    value = np.random.default_rng(3).integers(0, 8, (2,) + batch).astype(dtype)

    check(lambda lib, r, v: evaluate(lib.distributions.Poisson(r), quantity, v), rate, value,
          dtype=dtype, grad_inputs=[0])


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

    check(lambda lib, p, v: evaluate(lib.distributions.Binomial(5, **{param: p}), quantity, v),
          p, value, dtype=dtype, grad_inputs=[0])


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


def _counts(shape, high=8):
    return np.random.default_rng(3).integers(0, high, shape)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("batch", BATCHES)
@pytest.mark.parametrize("param", ["probs", "logits"])
@pytest.mark.parametrize("quantity", ["log_prob", "entropy", "mean", "mode", "variance",
                                      "stddev", "probs", "logits"])
def test_geometric(quantity, param, batch, dtype):
    p = draw("unit" if param == "probs" else "real", batch, dtype)
    value = _counts((2,) + batch).astype(dtype)
    check(lambda lib, p, v: evaluate(dists(lib).Geometric(**{param: p}), quantity, v), p,
          value, dtype=dtype, grad_inputs=[0])


def test_geometric_certain_success():
    """probs = 1: log_prob(0) = 0 rather than 0 * log(0) = nan."""
    check(lambda lib, p, v: dists(lib).Geometric(p).log_prob(v), np.array([1.0, 1.0, 0.5]),
          np.array([0.0, 2.0, 0.0]), dtype="float64", grad=False)


def test_geometric_probs_must_be_positive():
    check_error(lambda lib: dists(lib).Geometric(lib.tensor([0.5, 0.0])), ValueError,
                r"^Expected parameter probs \(Tensor of shape \(2,\)\) of distribution "
                r"Geometric\(probs: torch.Size\(\[2\]\)\) to be positive but found invalid "
                r"values:\n")
    check_error(lambda lib: dists(lib).Geometric(1.5), ValueError,
                r"^Expected parameter probs .* Interval\(lower_bound=0.0, upper_bound=1.0\)")
    dists(ember).Geometric(ember.tensor([0.0]), validate_args=False)     # no error


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("batch", BATCHES)
@pytest.mark.parametrize("param", ["probs", "logits"])
@pytest.mark.parametrize("quantity", ["log_prob", "mean", "mode", "variance", "stddev"])
def test_negative_binomial(quantity, param, batch, dtype):
    total_count = draw("positive", batch, dtype, seed=7) * 2
    p = draw("unit" if param == "probs" else "real", batch, dtype)
    value = _counts((2,) + batch).astype(dtype)
    check(lambda lib, n, p, v: evaluate(dists(lib).NegativeBinomial(n, **{param: p}),
                                         quantity, v),
          total_count, p, value, dtype=dtype, grad_inputs=[0, 1])


def test_negative_binomial_zero_total_count_and_number_parameters():
    check(lambda lib, n, v: dists(lib).NegativeBinomial(n, lib.tensor(0.3, dtype=n.dtype))
          .log_prob(v), np.array([0.0, 0.0, 3.0]), np.array([0.0, 1.0, 0.0]), dtype="float64",
          grad=False)
    check(lambda lib, v: dists(lib).NegativeBinomial(5, logits=0.5).log_prob(v),
          np.array([0.0, 4.0], dtype="float32"))


def test_negative_binomial_validation():
    check_error(lambda lib: dists(lib).NegativeBinomial(3, lib.tensor([0.5, 1.0])), ValueError,
                r"^Expected parameter probs .* HalfOpenInterval\(lower_bound=0.0, "
                r"upper_bound=1.0\)")
    check_error(lambda lib: dists(lib).NegativeBinomial(-1.0, lib.tensor(0.5)), ValueError,
                r"^Expected parameter total_count .* GreaterThanEq\(lower_bound=0\)")
    check_error(lambda lib: dists(lib).NegativeBinomial(3), ValueError,
                r"^Either `probs` or `logits` must be specified, but not both\.")


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("batch", BATCHES)
@pytest.mark.parametrize("param", ["probs", "logits"])
@pytest.mark.parametrize("quantity", ["log_prob", "entropy", "mean", "variance", "probs",
                                      "logits"])
def test_multinomial(quantity, param, batch, dtype):
    raw = draw("unit" if param == "probs" else "real", batch + (4,), dtype)
    value = _counts((2,) + batch + (4,), high=3).astype(dtype)
    # Multinomial's entropy subtracts torch's float32 lgamma(n + 1) even for float64
    # parameters; ember uses the exact value, so float64 agrees to float32 rounding only.
    tol = {"atol": 1e-6} if quantity == "entropy" else {}
    check(lambda lib, raw, v: evaluate(dists(lib).Multinomial(8, **{param: raw}), quantity,
                                        v),
          raw, value, dtype=dtype, grad_inputs=[0], **tol)


def test_multinomial_zero_probability_and_any_total():
    """log_prob scores count vectors of any total up to total_count; a zero-probability
    category never drawn contributes 0, drawn it gives -inf."""
    probs = np.array([[0.0, 0.5, 0.5], [0.2, 0.3, 0.5]])
    value = np.array([[0.0, 3.0, 1.0], [1.0, 0.0, 0.0]])
    check(lambda lib, p, v: dists(lib).Multinomial(4, probs=p).log_prob(v), probs, value,
          dtype="float64", grad=False)
    check(lambda lib, p, v: dists(lib).Multinomial(probs=p, validate_args=False).log_prob(v),
          probs, np.array([[1.0, 0.0, 0.0]]), dtype="float64", grad=False)


def test_multinomial_errors_and_support():
    check_error(lambda lib: dists(lib).Multinomial(lib.tensor(3), lib.ones(3)),
                NotImplementedError, "^inhomogeneous total_count is not supported")
    check_error(lambda lib: dists(lib).Multinomial(3, lib.ones(3)).log_prob(
        lib.tensor([2.0, 2.0, 0.0])), ValueError,
        r"^Expected value argument .* to be within the support \(Multinomial\(\)\)")
    check_error(lambda lib: dists(lib).Multinomial(3, lib.tensor([0.5, -0.5, 1.0])),
                ValueError, r"^Expected parameter probs .* Simplex\(\)")
    for lib in (torch, ember):
        support = dists(lib).Multinomial(3, lib.ones(3)).support
        assert support.is_discrete and support.event_dim == 1
        assert support.check(lib.tensor([[1.0, 0.0, 2.0], [-1.0, 2.0, 2.0]])).tolist() == \
            [True, False]


def _relaxed_bernoulli(lib, temperature, param, p):
    return dists(lib).RelaxedBernoulli(temperature, **{param: p})


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("batch", BATCHES)
@pytest.mark.parametrize("param", ["probs", "logits"])
def test_relaxed_bernoulli_log_prob(param, batch, dtype):
    temperature = np.array(0.7, dtype=dtype)
    p = draw("unit" if param == "probs" else "real", batch, dtype)
    value = draw("unit", (2,) + batch, dtype, seed=3)
    check(lambda lib, t, p, v: _relaxed_bernoulli(lib, t, param, p).log_prob(v),
          temperature, p, value, dtype=dtype)
    check(lambda lib, t, p, v: dists(lib).LogitRelaxedBernoulli(t, **{param: p}).log_prob(v),
          temperature, p, value * 4 - 2, dtype=dtype)
    check(lambda lib, t, p: _relaxed_bernoulli(lib, t, param, p).probs, temperature, p,
          dtype=dtype)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("batch", BATCHES)
@pytest.mark.parametrize("param", ["probs", "logits"])
def test_relaxed_one_hot_categorical_log_prob(param, batch, dtype):
    temperature = np.array(0.7, dtype=dtype)
    raw = draw("unit" if param == "probs" else "real", batch + (4,), dtype)
    points = draw("unit", (2,) + batch + (4,), dtype, seed=3)
    value = points / points.sum(-1, keepdims=True)
    check(lambda lib, t, p, v: dists(lib).RelaxedOneHotCategorical(t, **{param: p})
          .log_prob(v), temperature, raw, value, dtype=dtype, grad_inputs=[0, 1])
    check(lambda lib, t, p, v: dists(lib).ExpRelaxedCategorical(t, **{param: p})
          .log_prob(v.log()), temperature, raw, value, dtype=dtype)


def _instances(lib):
    D, half = dists(lib), lib.tensor([0.3, 0.6])
    probs = lib.tensor([[0.2, 0.3, 0.5], [0.1, 0.1, 0.8]])
    return {
        "Geometric": D.Geometric(half),
        "GeometricLogits": D.Geometric(logits=half),
        "NegativeBinomial": D.NegativeBinomial(lib.tensor([3.0, 4.5]), half),
        "Multinomial": D.Multinomial(4, probs),
        "RelaxedBernoulli": D.RelaxedBernoulli(lib.tensor(0.5), half),
        "LogitRelaxedBernoulli": D.LogitRelaxedBernoulli(lib.tensor(0.5), logits=half),
        "RelaxedOneHotCategorical": D.RelaxedOneHotCategorical(lib.tensor(0.5), probs),
        "ExpRelaxedCategorical": D.ExpRelaxedCategorical(lib.tensor(0.5), logits=probs),
        "OneHotCategoricalStraightThrough": D.OneHotCategoricalStraightThrough(logits=probs),
    }


NAMES = list(_instances(torch))


@pytest.mark.parametrize("name", NAMES)
def test_shapes_flags_repr_and_expand(name):
    t, e = _instances(torch)[name], _instances(ember)[name]
    assert tuple(e.batch_shape) == (2,)
    assert_like_torch(t, e)


def test_scalar_reprs():
    for build in (lambda D: D.Geometric(0.3), lambda D: D.Geometric(logits=-0.5),
                  lambda D: D.NegativeBinomial(3, logits=0.2)):
        assert repr(build(dists(ember))) == repr(build(dists(torch)))


def test_expanded_multinomial_entropy():
    """torch 2.13 bug: Multinomial.expand does not carry its internal Binomial over, so the
    expanded distribution's entropy raises AttributeError; it equals the unexpanded one."""
    probs = ember.tensor([0.2, 0.3, 0.5])
    dist = dists(ember).Multinomial(4, probs)
    expanded = dist.expand((3,))
    np.testing.assert_allclose(expanded.entropy().numpy(), dist.entropy().expand(3).numpy(),
                               rtol=1e-6)
    with pytest.raises(AttributeError):
        dists(torch).Multinomial(4, torch.tensor([0.2, 0.3, 0.5])).expand((3,)).entropy()
