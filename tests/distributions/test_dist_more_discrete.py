"""Geometric, NegativeBinomial, Multinomial and the relaxed (Concrete) Bernoulli and
one-hot categorical against torch: deterministic quantities, gradients, validation,
and sampling statistics."""
import numpy as np
import pytest
import torch

import ember
from dist_inputs import DTYPES, draw
from dist_more import assert_like_torch, dists
from oracle import check, check_error

BATCHES = [(), (4,), (2, 3)]


def _counts(shape, high=8):
    return np.random.default_rng(3).integers(0, high, shape)


def _evaluate(dist, quantity, value):
    if quantity in ("log_prob", "cdf"):
        return getattr(dist, quantity)(value)
    if quantity == "entropy":
        return dist.entropy()
    return getattr(dist, quantity)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("batch", BATCHES)
@pytest.mark.parametrize("param", ["probs", "logits"])
@pytest.mark.parametrize("quantity", ["log_prob", "entropy", "mean", "mode", "variance",
                                      "stddev", "probs", "logits"])
def test_geometric(quantity, param, batch, dtype):
    p = draw("unit" if param == "probs" else "real", batch, dtype)
    value = _counts((2,) + batch).astype(dtype)
    check(lambda lib, p, v: _evaluate(dists(lib).Geometric(**{param: p}), quantity, v), p,
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
    check(lambda lib, n, p, v: _evaluate(dists(lib).NegativeBinomial(n, **{param: p}),
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
    check(lambda lib, raw, v: _evaluate(dists(lib).Multinomial(8, **{param: raw}), quantity,
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


# ------------------------------------------------------------------ sampling

N_SAMPLES = 40_000


def _sampled(dtype):
    D = dists(ember)

    def param(*values):
        return ember.tensor(values, dtype=dtype, requires_grad=True)
    probs = ember.tensor([[0.2, 0.3, 0.5], [0.6, 0.3, 0.1]], dtype=dtype, requires_grad=True)
    return {
        "Geometric": D.Geometric(param(0.2, 0.9)),
        "NegativeBinomial": D.NegativeBinomial(param(3.0, 0.5), param(0.3, 0.8)),
        "Multinomial": D.Multinomial(7, probs),
        "RelaxedBernoulli": D.RelaxedBernoulli(param(0.5), param(0.2, 0.9)),
        "RelaxedOneHotCategorical": D.RelaxedOneHotCategorical(param(0.5), probs),
    }


SAMPLED = list(_sampled(ember.float32))
HAS_RSAMPLE = {"RelaxedBernoulli", "RelaxedOneHotCategorical"}


@pytest.mark.parametrize("dtype", [ember.float32, ember.float64])
@pytest.mark.parametrize("sample_shape", [(), (5,), (2, 3)])
@pytest.mark.parametrize("name", SAMPLED)
def test_sample_shape_dtype_and_support(name, sample_shape, dtype):
    ember.manual_seed(0)
    dist = _sampled(dtype)[name]
    sample = dist.sample(sample_shape)
    assert sample.shape == sample_shape + dist.batch_shape + dist.event_shape
    assert sample.dtype == dtype and not sample.requires_grad
    assert dist.support.check(sample).all()
    assert dist.has_rsample == (name in HAS_RSAMPLE)
    if dist.has_rsample:
        rsample = dist.rsample(sample_shape)
        assert rsample.shape == sample.shape and rsample.requires_grad
    else:
        with pytest.raises(NotImplementedError):
            dist.rsample(sample_shape)


@pytest.mark.parametrize("name", ["Geometric", "NegativeBinomial", "Multinomial"])
def test_moments(name):
    ember.manual_seed(1)
    dist = _sampled(ember.float64)[name]
    samples = dist.sample((N_SAMPLES,))
    expected_mean, expected_var = dist.mean.detach(), dist.variance.detach()
    tolerance = 5 * (expected_var / N_SAMPLES).sqrt()
    assert ((samples.mean(0) - expected_mean).abs() <= tolerance).all()
    np.testing.assert_allclose(samples.var(0).numpy(), expected_var.numpy(), rtol=0.1)


def test_multinomial_samples_sum_to_total_count():
    ember.manual_seed(2)
    samples = _sampled(ember.float32)["Multinomial"].sample((100,))
    assert (samples.sum(-1) == 7).all()


def test_relaxed_samples_keep_the_discrete_probabilities():
    """P(RelaxedBernoulli > 1/2) = probs (logistic noise is symmetric), and the argmax of a
    relaxed one-hot sample is Categorical(probs) (the Gumbel-max trick)."""
    ember.manual_seed(3)
    D = _sampled(ember.float64)
    bernoulli = D["RelaxedBernoulli"]
    fraction = (bernoulli.sample((N_SAMPLES,)) > 0.5).double().mean(0)
    probs = bernoulli.probs.detach()
    assert ((fraction - probs).abs() <= 5 * (probs * (1 - probs) / N_SAMPLES).sqrt()).all()
    categorical = D["RelaxedOneHotCategorical"]
    winners = categorical.sample((N_SAMPLES,)).argmax(-1)
    frequencies = ember.nn.functional.one_hot(winners, 3).double().mean(0)
    probs = categorical.probs.detach()
    assert ((frequencies - probs).abs() <= 5 * (probs * (1 - probs) / N_SAMPLES).sqrt()).all()


def test_relaxed_bernoulli_reparameterization():
    """x = sigmoid((noise + logits) / T): dx/dlogits = x (1 - x) / T and
    dx/dT = -x (1 - x) logit(x) / T."""
    temperature = ember.tensor(0.5, dtype=ember.float64, requires_grad=True)
    logits = ember.tensor([-1.0, 2.0], dtype=ember.float64, requires_grad=True)
    x = dists(ember).RelaxedBernoulli(temperature, logits=logits).rsample((50,))
    d_logits, d_temperature = ember.autograd.grad(x.sum(), [logits, temperature])
    x = x.detach()
    slope = x * (1 - x)
    np.testing.assert_allclose(d_logits.numpy(), (slope / 0.5).sum(0).numpy(), rtol=1e-8)
    expected = (-slope * (x.log() - (1 - x).log()) / 0.5).sum()
    np.testing.assert_allclose(d_temperature.numpy(), expected.numpy(), rtol=1e-8)


def test_relaxed_one_hot_reparameterization():
    """The rows of the Jacobian of softmax((logits + g) / T) w.r.t. logits sum to zero."""
    logits = ember.tensor([0.5, -1.0, 2.0], dtype=ember.float64, requires_grad=True)
    dist = dists(ember).RelaxedOneHotCategorical(ember.tensor(0.5, dtype=ember.float64),
                                                 logits=logits)
    x = dist.rsample((20,))
    (grad_sum,) = ember.autograd.grad(x.sum(), [logits], retain_graph=True)
    np.testing.assert_allclose(grad_sum.numpy(), np.zeros(3), atol=1e-12)
    (grad_first,) = ember.autograd.grad(x[..., 0].sum(), [logits])
    x = x.detach()
    expected = ((x[:, :1] * ((ember.arange(3) == 0).double() - x)) / 0.5).sum(0)
    np.testing.assert_allclose(grad_first.numpy(), expected.numpy(), rtol=1e-8)
