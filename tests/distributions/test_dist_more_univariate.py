"""Continuous univariate distributions added after the first set (Cauchy, HalfNormal,
HalfCauchy, StudentT, Chi2, Gumbel, Weibull, Pareto): deterministic quantities and their
gradients against torch, shapes, reprs, expand, validation, and sampling statistics."""
import numpy as np
import pytest
import torch

import ember
from dist_inputs import DTYPES, draw, draw_all
from dist_more import assert_like_torch, dists
from oracle import check, check_error
from test_dist_univariate import _quantity

COMMON = ["mean", "mode", "variance", "stddev", "entropy", "log_prob"]
# name -> (constructor, parameter kinds, kind of value in the support, quantities torch has)
DISTRIBUTIONS = {
    "Cauchy": (lambda D, a, b: D.Cauchy(a, b), ["real", "positive"], "real",
               COMMON + ["cdf", "icdf"]),
    "HalfNormal": (lambda D, s: D.HalfNormal(s), ["positive"], "positive",
                   COMMON + ["cdf", "icdf"]),
    "HalfCauchy": (lambda D, s: D.HalfCauchy(s), ["positive"], "positive",
                   COMMON + ["cdf", "icdf"]),
    # df in (0.5, 2.5) covers an undefined mean, an infinite and a finite variance.
    "StudentT": (lambda D, df, a, b: D.StudentT(df, a, b), ["positive", "real", "positive"],
                 "real", COMMON),
    "Chi2": (lambda D, df: D.Chi2(df), ["positive"], "positive", COMMON + ["cdf"]),
    "Gumbel": (lambda D, a, b: D.Gumbel(a, b), ["real", "positive"], "real",
               COMMON + ["cdf", "icdf"]),
    # concentration below 1 makes the mode nan, as in torch.
    "Weibull": (lambda D, s, k: D.Weibull(s, k), ["positive", "positive"], "positive",
                COMMON + ["cdf", "icdf"]),
    # alpha in (0.5, 2.5): infinite mean for alpha <= 1, infinite variance for alpha <= 2.
    "Pareto": (lambda D, s, a: D.Pareto(s, a), ["positive", "positive"], "above_scale",
               COMMON + ["cdf", "icdf"]),
}
CASES = [(name, q) for name, entry in DISTRIBUTIONS.items() for q in entry[3]]
SHAPES = [
    ([(), (), ()], (3,)),
    ([(4,), (4,), (4,)], (2, 4)),
    ([(3, 1), (4,), (4,)], (3, 4)),
]


def _value(kind, shape, dtype):
    if kind == "above_scale":           # Pareto: above every scale drawn from "positive"
        return draw("positive", shape, dtype, seed=10) + 2.0
    return draw(kind, shape, dtype, seed=10)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("param_shapes,value_shape", SHAPES)
@pytest.mark.parametrize("name,quantity", CASES)
def test_quantity_and_gradients(name, quantity, param_shapes, value_shape, dtype):
    build, kinds, value_kind, _ = DISTRIBUTIONS[name]
    params = draw_all(kinds, param_shapes[:len(kinds)], dtype)
    value = _value("unit" if quantity == "icdf" else value_kind, value_shape, dtype)
    # torch cannot differentiate the incomplete gamma function in its shape parameter.
    grad_inputs = [1] if (name, quantity) == ("Chi2", "cdf") else None
    check(lambda lib, *xs: _quantity(dists(lib), build, quantity, xs[:-1], xs[-1]),
          *params, value, dtype=dtype, grad_inputs=grad_inputs)


@pytest.mark.parametrize("name", list(DISTRIBUTIONS))
def test_non_contiguous_parameters(name):
    build, kinds, value_kind, _ = DISTRIBUTIONS[name]
    params = draw_all(kinds, [(4, 3)] * len(kinds), "float64")
    value = _value(value_kind, (4, 3), "float64")
    check(lambda lib, *xs: build(dists(lib), *xs[:-1]).log_prob(xs[-1]),
          *params, value, dtype="float64", non_contiguous=True)


@pytest.mark.parametrize("name", list(DISTRIBUTIONS))
def test_python_number_parameters(name):
    """Numbers become default-dtype zero-dim tensors: batch_shape ()."""
    build, kinds, value_kind, _ = DISTRIBUTIONS[name]
    numbers = [float(a) for a in draw_all(kinds, [()] * len(kinds), "float64")]
    value = _value(value_kind, (5,), "float32")
    out = check(lambda lib, v: build(dists(lib), *numbers).log_prob(v), value)
    assert out.shape == (5,)
    check(lambda lib: build(dists(lib), *numbers).entropy(), grad=False)


@pytest.mark.parametrize("name", list(DISTRIBUTIONS))
def test_empty_batch(name):
    build, kinds, value_kind, _ = DISTRIBUTIONS[name]
    params = draw_all(kinds, [(0, 3)] * len(kinds), "float32")
    value = _value(value_kind, (0, 3), "float32")
    check(lambda lib, *xs: build(dists(lib), *xs[:-1]).log_prob(xs[-1]), *params, value)


def _instances(lib):
    D, ones = dists(lib), lib.ones(2)
    return {
        "Cauchy": D.Cauchy(lib.zeros(2), ones),
        "HalfNormal": D.HalfNormal(ones),
        "HalfCauchy": D.HalfCauchy(ones),
        "StudentT": D.StudentT(ones * 3, lib.zeros(2), ones),
        "Chi2": D.Chi2(ones * 3),
        "Gumbel": D.Gumbel(lib.zeros(2), ones),
        "Weibull": D.Weibull(ones, ones * 2),
        "Pareto": D.Pareto(ones, ones * 3),
    }


@pytest.mark.parametrize("name", list(DISTRIBUTIONS))
def test_shapes_flags_repr_and_expand(name):
    t, e = _instances(torch)[name], _instances(ember)[name]
    assert tuple(e.batch_shape) == (2,)
    assert_like_torch(t, e)
    te, ee = t.expand((5, 2)), e.expand((5, 2))
    np.testing.assert_allclose(ee.mean.numpy(), te.mean.numpy())
    np.testing.assert_allclose(ee.entropy().numpy(), te.entropy().numpy(), rtol=1e-6)


def test_scalar_reprs():
    for build in (lambda D: D.Cauchy(0.0, 1.0), lambda D: D.StudentT(3.0),
                  lambda D: D.Gumbel(0.5, 2.0), lambda D: D.Pareto(1.0, 2.0),
                  lambda D: D.Weibull(1.0, 2.0), lambda D: D.Chi2(3.0),
                  lambda D: D.HalfNormal(2.0)):
        assert repr(build(dists(ember))) == repr(build(dists(torch)))


@pytest.mark.parametrize("build,message", [
    (lambda lib: dists(lib).Cauchy(0.0, -1.0), r"^Expected parameter scale .*GreaterThan"),
    (lambda lib: dists(lib).HalfNormal(lib.tensor([1.0, -1.0])),
     r"^Expected parameter scale \(Tensor of shape \(2,\)\) of distribution HalfNormal\(\) "
     r"to satisfy the constraint GreaterThan\(lower_bound=0.0\)"),
    (lambda lib: dists(lib).HalfCauchy(0.0), r"^Expected parameter scale"),
    (lambda lib: dists(lib).StudentT(-1.0), r"^Expected parameter df"),
    (lambda lib: dists(lib).StudentT(1.0, float("nan")), r"^Expected parameter loc"),
    (lambda lib: dists(lib).Chi2(lib.tensor([0.0])),
     r"^Expected parameter df \(Tensor of shape \(1,\)\) of distribution Chi2\(\)"),
    (lambda lib: dists(lib).Gumbel(0.0, 0.0), r"^Expected parameter scale"),
    (lambda lib: dists(lib).Weibull(1.0, -2.0), r"^Expected parameter concentration"),
    # The base Exponential(alpha) is validated first, in torch as in ember.
    (lambda lib: dists(lib).Pareto(1.0, -2.0),
     r"^Expected parameter rate \(Tensor of shape \(\)\) of distribution "
     r"Exponential\(rate: -2.0\)"),
    (lambda lib: dists(lib).Pareto(lib.tensor([1.0, -1.0]), 2.0),
     r"^Expected parameter scale \(Tensor of shape \(2,\)\) of distribution "
     r"Pareto\(alpha: torch.Size\(\[2\]\), scale: torch.Size\(\[2\]\)\)"),
])
def test_parameter_validation(build, message):
    check_error(build, ValueError, message)


@pytest.mark.parametrize("build,value,support", [
    (lambda D: D.HalfNormal(1.0), -1.0, r"GreaterThanEq\(lower_bound=0.0\)"),
    (lambda D: D.HalfCauchy(1.0), -1.0, r"GreaterThanEq\(lower_bound=0.0\)"),
    (lambda D: D.Chi2(2.0), -1.0, r"GreaterThanEq\(lower_bound=0.0\)"),
    (lambda D: D.Weibull(1.0, 2.0), 0.0, r"GreaterThan\(lower_bound=0.0\)"),
    (lambda D: D.Pareto(2.0, 2.0), 1.0, r"GreaterThanEq\(lower_bound=2.0\)"),
    (lambda D: D.Cauchy(0.0, 1.0), float("nan"), r"Real\(\)"),
])
def test_value_validation(build, value, support):
    check_error(lambda lib: build(dists(lib)).log_prob(lib.tensor([value])), ValueError,
                r"^Expected value argument \(Tensor of shape \(1,\)\) to be within the "
                rf"support \({support}\)")


def test_half_distributions_outside_support_without_validation():
    """-inf below zero; HalfCauchy (only) casts values to its parameters' dtype, as torch."""
    value = np.array([-1.0, 0.0, 1.0])
    for name in ("HalfNormal", "HalfCauchy"):
        check(lambda lib, v: getattr(dists(lib), name)(2.0, validate_args=False).log_prob(v),
              value, dtype="float64", grad=False, atol=1e-6)
    check(lambda lib: dists(lib).HalfCauchy(2.0, validate_args=False).log_prob(1.0),
          grad=False)


def test_studentt_default_loc_scale_and_df_gradient_through_all_regimes():
    df = np.array([0.5, 1.0, 1.5, 2.0, 2.5, 30.0])
    for quantity in ("mean", "variance"):
        check(lambda lib, d: getattr(
            dists(lib).StudentT(d, lib.ones(6, dtype=d.dtype)), quantity), df, dtype="float64")


def test_icdf_inverts_cdf():
    probs = np.array([0.05, 0.3, 0.5, 0.7, 0.95])
    for build in (lambda D: D.Cauchy(1.0, 2.0), lambda D: D.Gumbel(1.0, 2.0),
                  lambda D: D.Weibull(2.0, 1.5), lambda D: D.Pareto(2.0, 3.0),
                  lambda D: D.HalfNormal(2.0), lambda D: D.HalfCauchy(2.0)):
        out = check(lambda lib, p: build(dists(lib)).cdf(build(dists(lib)).icdf(p)), probs,
                    dtype="float64")
        np.testing.assert_allclose(out.detach().numpy(), probs, rtol=1e-6)


def test_double_backward():
    def fn(lib, df, loc, scale):
        value = lib.tensor([0.3, -1.0], dtype=df.dtype)
        log_prob = dists(lib).StudentT(df, loc, scale).log_prob(value)
        return lib.autograd.grad(log_prob.sum(), [df, loc, scale], create_graph=True)
    params = draw_all(["positive", "real", "positive"], [(2,)] * 3, "float64")
    check(fn, *params, dtype="float64")


# ------------------------------------------------------------------ sampling

N_SAMPLES = 40_000


def _sampled(dtype):
    """name -> distribution with batch shape (2,) whose parameters require grad."""
    D = dists(ember)

    def param(*values):
        return ember.tensor(values, dtype=dtype, requires_grad=True)
    return {
        "Cauchy": D.Cauchy(param(0.5, -1.0), param(1.0, 2.0)),
        "HalfNormal": D.HalfNormal(param(1.0, 2.0)),
        "HalfCauchy": D.HalfCauchy(param(1.0, 2.0)),
        "StudentT": D.StudentT(param(5.0, 12.0), param(0.5, -1.0), param(1.0, 2.0)),
        "Chi2": D.Chi2(param(0.7, 4.0)),
        "Gumbel": D.Gumbel(param(0.5, -1.0), param(1.0, 2.0)),
        "Weibull": D.Weibull(param(1.0, 2.0), param(0.8, 3.0)),
        "Pareto": D.Pareto(param(1.0, 2.0), param(5.0, 8.0)),
    }


@pytest.mark.parametrize("dtype", [ember.float32, ember.float64])
@pytest.mark.parametrize("sample_shape", [(), (5,), (2, 3)])
@pytest.mark.parametrize("name", list(DISTRIBUTIONS))
def test_sample_shape_dtype_and_support(name, sample_shape, dtype):
    ember.manual_seed(0)
    dist = _sampled(dtype)[name]
    sample = dist.sample(sample_shape)
    assert sample.shape == sample_shape + (2,)
    assert sample.dtype == dtype and not sample.requires_grad
    assert dist.support.check(sample).all()
    rsample = dist.rsample(sample_shape)
    assert rsample.shape == sample.shape and rsample.dtype == dtype
    assert rsample.requires_grad


# No finite variance for Cauchy and HalfCauchy: they are checked through their CDF only.
MOMENTS = [n for n in DISTRIBUTIONS if n not in ("Cauchy", "HalfCauchy")]


@pytest.mark.parametrize("name", MOMENTS)
def test_moments(name):
    ember.manual_seed(1)
    dist = _sampled(ember.float64)[name]
    samples = dist.sample((N_SAMPLES,))
    expected_mean, expected_var = dist.mean.detach(), dist.variance.detach()
    tolerance = 5 * (expected_var / N_SAMPLES).sqrt()     # five standard errors
    assert ((samples.mean(0) - expected_mean).abs() <= tolerance).all()
    # Heavy tails (StudentT, Pareto) make the sample variance noisy: 15 %.
    np.testing.assert_allclose(samples.var(0).numpy(), expected_var.numpy(), rtol=0.15)


@pytest.mark.parametrize("name", [n for n in DISTRIBUTIONS if "cdf" in DISTRIBUTIONS[n][3]])
def test_empirical_cdf(name):
    """The fraction of samples below the q-quantile is q, within five standard errors."""
    ember.manual_seed(2)
    dist = _sampled(ember.float64)[name]
    samples = dist.sample((N_SAMPLES,))
    for q in (0.1, 0.5, 0.9):
        quantile = dist.icdf(ember.full((2,), q, dtype=ember.float64)).detach() \
            if "icdf" in DISTRIBUTIONS[name][3] else None
        if quantile is None:      # Chi2: compare the fraction at the mean instead
            threshold = dist.mean.detach()
            q = dist.cdf(threshold).detach()
        else:
            threshold = quantile
        fraction = (samples <= threshold).double().mean(0)
        tolerance = 5 * (q * (1 - q) / N_SAMPLES) ** 0.5
        assert ((fraction - q).abs() <= tolerance).all(), (fraction, q)


def _grads(output, inputs):
    return ember.autograd.grad(output.sum(), inputs)


@pytest.mark.parametrize("name", ["Cauchy", "Gumbel"])
def test_location_scale_reparameterization(name):
    dist = _sampled(ember.float64)[name]
    x = dist.rsample((100,))
    d_loc, d_scale = _grads(x, [dist.loc, dist.scale])
    np.testing.assert_allclose(d_loc.numpy(), [100.0, 100.0])
    expected = ((x - dist.loc) / dist.scale).sum(0).detach()
    np.testing.assert_allclose(d_scale.numpy(), expected.numpy(), rtol=1e-10)


def test_half_normal_weibull_pareto_reparameterization():
    D = _sampled(ember.float64)
    for name in ("HalfNormal", "HalfCauchy", "Weibull", "Pareto"):
        dist = D[name]
        x = dist.rsample((50,))
        (d_scale,) = _grads(x, [dist.scale])
        np.testing.assert_allclose(d_scale.numpy(), (x / dist.scale).sum(0).detach().numpy(),
                                   rtol=1e-10)
    pareto = D["Pareto"]
    x = pareto.rsample((50,))
    (d_alpha,) = _grads(x, [pareto.alpha])
    # x = scale exp(E / alpha) with E ~ Exponential(1): dx/dalpha = -x log(x / scale) / alpha
    expected = (-x * (x / pareto.scale).log() / pareto.alpha).sum(0).detach()
    np.testing.assert_allclose(d_alpha.numpy(), expected.numpy(), rtol=1e-8)


def test_studentt_and_chi2_reparameterization_is_unbiased():
    """The mean of pathwise gradients approaches the gradient of the exact moment."""
    ember.manual_seed(4)
    df = ember.tensor([6.0, 12.0], dtype=ember.float64, requires_grad=True)
    chi2 = dists(ember).Chi2(df)
    (pathwise,) = _grads(chi2.rsample((N_SAMPLES,)).mean(0), [df])
    np.testing.assert_allclose(pathwise.numpy(), [1.0, 1.0], atol=0.02)    # d E[X] / d df
    scale = ember.tensor([1.0, 2.0], dtype=ember.float64, requires_grad=True)
    student = dists(ember).StudentT(df, 0.0, scale)
    second_moment = student.rsample((N_SAMPLES,)).pow(2).mean(0)
    d_df, d_scale = ember.autograd.grad(second_moment.sum(), [df, scale])
    exact_d_df, exact_d_scale = ember.autograd.grad(student.variance.sum(), [df, scale])
    np.testing.assert_allclose(d_scale.numpy(), exact_d_scale.numpy(), rtol=0.1)
    np.testing.assert_allclose(d_df.numpy(), exact_d_df.numpy(), rtol=0.3)
    assert (exact_d_df.abs() > 0.02).all()


def test_torch_samples_have_the_same_flags():
    for name, dist in _instances(torch).items():
        assert dist.has_rsample, name
    assert _sampled(ember.float32)["Gumbel"].has_rsample
