"""Sampling: shapes, dtypes, grad flags, support and moments (ember's random numbers are
not torch's, so values are checked statistically), and reparameterization gradients."""
import numpy as np
import pytest
import torch

import ember
import ember.distributions  # noqa: F401  (binds ember.distributions)

N_SAMPLES = 40_000


def _distributions(dtype):
    """name -> distribution with batch shape (2,), parameters of `dtype` requiring grad."""
    D = ember.distributions

    def param(*values):
        return ember.tensor(values, dtype=dtype, requires_grad=True)
    probs = ember.tensor([[0.2, 0.3, 0.5], [0.6, 0.3, 0.1]], dtype=dtype, requires_grad=True)
    covariance = ember.tensor([[2.0, 0.5], [0.5, 1.0]], dtype=dtype, requires_grad=True)
    return {
        "Normal": D.Normal(param(0.5, -1.0), param(1.0, 2.0)),
        "Laplace": D.Laplace(param(0.5, -1.0), param(1.0, 2.0)),
        "Uniform": D.Uniform(param(-1.0, 2.0), param(1.0, 5.0)),
        "Exponential": D.Exponential(param(0.5, 3.0)),
        "LogNormal": D.LogNormal(param(0.0, 0.5), param(0.25, 0.5)),
        "Gamma": D.Gamma(param(0.3, 4.0), param(1.0, 2.0)),
        "Beta": D.Beta(param(0.5, 2.0), param(0.7, 3.0)),
        "Dirichlet": D.Dirichlet(probs * 4),
        "MultivariateNormal": D.MultivariateNormal(param(1.0, -1.0), covariance),
        "Bernoulli": D.Bernoulli(param(0.2, 0.9)),
        "Categorical": D.Categorical(probs),
        "OneHotCategorical": D.OneHotCategorical(probs),
        "Poisson": D.Poisson(param(0.5, 7.0)),
        "Binomial": D.Binomial(10, param(0.2, 0.9)),
        "Independent": D.Independent(D.Normal(param(0.5, -1.0), param(1.0, 2.0)), 1),
    }


NAMES = list(_distributions(ember.float32))
INTEGER_SAMPLES = {"Categorical"}


@pytest.mark.parametrize("dtype", [ember.float32, ember.float64])
@pytest.mark.parametrize("sample_shape", [(), (5,), (2, 3)])
@pytest.mark.parametrize("name", NAMES)
def test_sample_shape_dtype_and_support(name, sample_shape, dtype):
    ember.manual_seed(0)
    dist = _distributions(dtype)[name]
    sample = dist.sample(sample_shape)
    assert sample.shape == sample_shape + dist.batch_shape + dist.event_shape
    assert sample.dtype == (ember.int64 if name in INTEGER_SAMPLES else dtype)
    assert not sample.requires_grad
    assert dist.support.check(sample).all()
    if dist.has_rsample:
        rsample = dist.rsample(sample_shape)
        assert rsample.shape == sample.shape and rsample.dtype == dtype
        assert rsample.requires_grad
    else:
        with pytest.raises(NotImplementedError):
            dist.rsample(sample_shape)


def test_has_rsample_matches_torch():
    t = {"Normal", "Laplace", "Uniform", "Exponential", "LogNormal", "Gamma", "Beta",
         "Dirichlet", "MultivariateNormal", "Independent"}
    assert {name for name, d in _distributions(ember.float32).items() if d.has_rsample} == t
    assert torch.distributions.Gamma(1.0, 1.0).has_rsample
    assert not torch.distributions.Poisson(1.0).has_rsample


def _sample_moments(samples, name):
    if name == "Categorical":    # no mean in torch (nan): compare frequencies with probs
        samples = ember.nn.functional.one_hot(samples, 3).double()
    samples = samples.double()
    return samples.mean(0), samples.var(0)


@pytest.mark.parametrize("name", NAMES)
def test_moments(name):
    ember.manual_seed(1)
    dist = _distributions(ember.float64)[name]
    samples = dist.sample((N_SAMPLES,))
    mean, var = _sample_moments(samples, name)
    if name == "Categorical":
        expected_mean = dist.probs.detach()
        expected_var = expected_mean * (1 - expected_mean)
    else:
        expected_mean, expected_var = dist.mean.detach(), dist.variance.detach()
    # Five standard errors of the sample mean; the variance within 10 %.
    tolerance = 5 * (expected_var / N_SAMPLES).sqrt()
    assert ((mean - expected_mean).abs() <= tolerance).all(), (mean, expected_mean)
    np.testing.assert_allclose(var.numpy(), expected_var.numpy(), rtol=0.1)


def _grads(output, inputs):
    return ember.autograd.grad(output.sum(), inputs)


def test_normal_and_laplace_reparameterization():
    for name in ("Normal", "Laplace"):
        dist = _distributions(ember.float64)[name]
        x = dist.rsample((100,))
        d_loc, d_scale = _grads(x, [dist.loc, dist.scale])
        np.testing.assert_allclose(d_loc.numpy(), [100.0, 100.0])
        expected = ((x - dist.loc) / dist.scale).sum(0)
        np.testing.assert_allclose(d_scale.numpy(), expected.detach().numpy(), rtol=1e-10)


def test_uniform_exponential_lognormal_reparameterization():
    D = _distributions(ember.float64)
    uniform = D["Uniform"]
    x = uniform.rsample((50,))
    d_low, d_high = _grads(x, [uniform.low, uniform.high])
    width = (uniform.high - uniform.low).detach()
    np.testing.assert_allclose(d_low.numpy(), ((uniform.high.detach() - x.detach()) / width)
                               .sum(0).numpy(), rtol=1e-10)
    np.testing.assert_allclose(d_high.numpy(), ((x.detach() - uniform.low.detach()) / width)
                               .sum(0).numpy(), rtol=1e-10)
    exponential = D["Exponential"]
    x = exponential.rsample((50,))
    (d_rate,) = _grads(x, [exponential.rate])
    np.testing.assert_allclose(d_rate.numpy(), (-x / exponential.rate).sum(0).detach().numpy(),
                               rtol=1e-10)
    lognormal = D["LogNormal"]
    x = lognormal.rsample((50,))
    (d_loc,) = _grads(x, [lognormal.loc])
    np.testing.assert_allclose(d_loc.numpy(), x.sum(0).detach().numpy(), rtol=1e-10)


def test_multivariate_normal_reparameterization():
    loc = ember.zeros(3, dtype=ember.float64, requires_grad=True)
    tril = ember.tensor([[1.0, 0.0, 0.0], [0.5, 2.0, 0.0], [-0.3, 0.2, 0.7]],
                        dtype=ember.float64, requires_grad=True)
    dist = ember.distributions.MultivariateNormal(loc, scale_tril=tril)
    x = dist.rsample((20,))
    d_loc, d_tril = _grads(x, [loc, tril])
    np.testing.assert_allclose(d_loc.numpy(), [20.0] * 3)
    eps = ember.linalg.solve_triangular(tril.detach(), x.detach().mT, upper=False).mT
    np.testing.assert_allclose(d_tril.numpy(), np.outer(np.ones(3), eps.sum(0).numpy()),
                               rtol=1e-10)


def test_gamma_reparameterization_matches_torch_implicit_gradient():
    ember.manual_seed(2)
    concentration = ember.tensor([0.05, 0.3, 1.0, 4.0, 60.0], dtype=ember.float64,
                                 requires_grad=True)
    rate = ember.tensor([1.0, 2.0, 0.5, 1.0, 3.0], dtype=ember.float64, requires_grad=True)
    x = ember.distributions.Gamma(concentration, rate).rsample((200,))
    d_concentration, d_rate = ember.autograd.grad(x.sum(), [concentration, rate],
                                                  retain_graph=True)
    # torch's own implicit gradient of Gamma(alpha, 1) draws, evaluated at ember's draws.
    standard = torch.from_numpy((x * rate).detach().numpy())
    alpha = torch.from_numpy(concentration.detach().numpy()).expand_as(standard)
    expected = torch._standard_gamma_grad(alpha, standard) / torch.tensor(rate.tolist())
    np.testing.assert_allclose(d_concentration.numpy(), expected.sum(0).numpy(), rtol=2e-3)
    np.testing.assert_allclose(d_rate.numpy(), (-x / rate).sum(0).detach().numpy(), rtol=1e-10)


def _gamma_icdf(alpha: float, u: float) -> float:
    """Inverse of torch.special.gammainc(alpha, .) by bisection in log space."""
    lo, hi = -60.0, 10.0
    for _ in range(200):
        mid = (lo + hi) / 2
        cdf = torch.special.gammainc(torch.tensor(alpha, dtype=torch.float64),
                                     torch.tensor(mid, dtype=torch.float64).exp())
        lo, hi = (mid, hi) if cdf < u else (lo, mid)
    return float(np.exp((lo + hi) / 2))


@pytest.mark.parametrize("alpha", [0.2, 1.0, 3.5, 20.0])
def test_gamma_gradient_is_the_derivative_of_the_inverse_cdf(alpha):
    """dx/dalpha at fixed u = F(x; alpha), by a finite difference of torch's gammainc inverse."""
    ember.manual_seed(3)
    concentration = ember.full((4,), alpha, dtype=ember.float64, requires_grad=True)
    x = ember.distributions.Gamma(concentration, 1.0).rsample()
    (grad,) = ember.autograd.grad(x.sum(), [concentration])
    step = 1e-5 * alpha
    for xi, gi in zip(x.detach().numpy(), grad.numpy()):
        u = float(torch.special.gammainc(torch.tensor(alpha, dtype=torch.float64),
                                         torch.tensor(xi, dtype=torch.float64)))
        finite_difference = (_gamma_icdf(alpha + step, u)
                             - _gamma_icdf(alpha - step, u)) / (2 * step)
        np.testing.assert_allclose(gi, finite_difference, rtol=1e-4, atol=1e-8)


@pytest.mark.parametrize("name", ["Beta", "Dirichlet"])
def test_beta_dirichlet_reparameterization_is_unbiased(name):
    """The mean of the pathwise gradients approaches the gradient of the exact mean."""
    ember.manual_seed(4)
    dist = _distributions(ember.float64)[name]
    params = ([dist._dirichlet.concentration] if name == "Beta" else [dist.concentration])
    leaf = params[0]
    samples, mean = dist.rsample((N_SAMPLES,)), dist.mean
    if name == "Dirichlet":    # components sum to one: follow the first one only
        samples, mean = samples[..., 0], mean[..., 0]
    (pathwise,) = ember.autograd.grad(samples.mean(0).sum(), [leaf], retain_graph=True)
    (exact,) = ember.autograd.grad(mean.sum(), [leaf])
    assert exact.abs().min() > 0.02     # the check below is not vacuous
    np.testing.assert_allclose(pathwise.numpy(), exact.numpy(), atol=0.005)
