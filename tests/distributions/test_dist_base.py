"""The Distribution interface: validation messages, repr, shapes, expand and defaults."""
import numpy as np
import pytest
import torch

import ember
import ember.distributions  # noqa: F401  (binds ember.distributions)
from dist_inputs import draw_all
from oracle import check, check_error


def _all(lib):
    """One instance of every distribution, with batched tensor parameters."""
    D = lib.distributions
    p = lib.tensor([[0.2, 0.3, 0.5], [0.1, 0.1, 0.8]])
    return {
        "Normal": D.Normal(lib.zeros(2), lib.ones(2)),
        "Laplace": D.Laplace(lib.zeros(2), lib.ones(2)),
        "Uniform": D.Uniform(lib.zeros(2), lib.ones(2)),
        "Exponential": D.Exponential(lib.ones(2)),
        "LogNormal": D.LogNormal(lib.zeros(2), lib.ones(2)),
        "Gamma": D.Gamma(lib.ones(2), lib.ones(2)),
        "Beta": D.Beta(lib.ones(2), lib.ones(2)),
        "Dirichlet": D.Dirichlet(p),
        "Bernoulli": D.Bernoulli(probs=lib.tensor([0.3, 0.6])),
        "BernoulliLogits": D.Bernoulli(logits=lib.tensor([0.3, 0.6])),
        "Categorical": D.Categorical(p),
        "OneHotCategorical": D.OneHotCategorical(p),
        "Poisson": D.Poisson(lib.ones(2)),
        "Binomial": D.Binomial(4, lib.tensor([0.3, 0.6])),
        "MultivariateNormal": D.MultivariateNormal(lib.zeros(2, 3), lib.eye(3)),
        "Independent": D.Independent(D.Normal(lib.zeros(2, 3), 1.0), 1),
    }


NAMES = list(_all(torch))


@pytest.mark.parametrize("name", NAMES)
def test_shapes_flags_and_repr(name):
    t, e = _all(torch)[name], _all(ember)[name]
    assert tuple(e.batch_shape) == tuple(t.batch_shape)
    assert tuple(e.event_shape) == tuple(t.event_shape)
    assert type(e.batch_shape).__name__ == "Size"
    assert e.has_rsample == t.has_rsample
    assert e.has_enumerate_support == t.has_enumerate_support
    assert repr(e) == repr(t)
    assert repr(e.support) == repr(t.support)
    assert list(e.arg_constraints) == list(t.arg_constraints)


@pytest.mark.parametrize("name", NAMES)
def test_expand(name):
    t, e = _all(torch)[name].expand((5, 2)), _all(ember)[name].expand((5, 2))
    assert type(e).__name__ == type(t).__name__
    assert tuple(e.batch_shape) == tuple(t.batch_shape) == (5, 2)
    assert tuple(e.event_shape) == tuple(t.event_shape)
    assert tuple(e.sample((3,)).shape) == tuple(t.sample((3,)).shape)
    np.testing.assert_allclose(e.mean.numpy(), t.mean.numpy())


def test_scalar_reprs():
    for build in (lambda D: D.Normal(0.0, 1.0), lambda D: D.Bernoulli(logits=0.3),
                  lambda D: D.Gamma(1.0, 2.0), lambda D: D.Uniform(0.0, 1.0),
                  lambda D: D.Binomial(3, torch_or_ember(D).tensor([0.2])),
                  lambda D: D.Normal(torch_or_ember(D).tensor(0.5), 1.0)):
        assert repr(build(ember.distributions)) == repr(build(torch.distributions))


def torch_or_ember(D):
    return torch if D is torch.distributions else ember


def test_parameter_validation_messages():
    check_error(lambda lib: lib.distributions.Normal(lib.tensor([0.0, 1.0]),
                                                     lib.tensor([-1.0, 1.0])), ValueError,
                r"^Expected parameter scale \(Tensor of shape \(2,\)\) of distribution "
                r"Normal\(loc: torch.Size\(\[2\]\), scale: torch.Size\(\[2\]\)\) to satisfy the "
                r"constraint GreaterThan\(lower_bound=0.0\), but found invalid values:\n")
    check_error(lambda lib: lib.distributions.Uniform(1.0, 0.0), ValueError,
                r"^Expected parameter low \(Tensor of shape \(\)\) of distribution "
                r"Uniform\(low: 1.0, high: 0.0\) to satisfy the constraint "
                r"LessThan\(upper_bound=0.0\), but found invalid values:")
    check_error(lambda lib: lib.distributions.Bernoulli(1.5), ValueError,
                r"^Expected parameter probs .* Interval\(lower_bound=0.0, upper_bound=1.0\)")
    check_error(lambda lib: lib.distributions.Categorical(lib.tensor([0.5, -0.5, 1.0])),
                ValueError, r"^Expected parameter probs .* Simplex\(\)")
    check_error(lambda lib: lib.distributions.Binomial(2.5, lib.tensor(0.5)), ValueError,
                r"^Expected parameter total_count .* IntegerGreaterThan\(lower_bound=0\)")
    check_error(lambda lib: lib.distributions.Gamma(lib.tensor([1.0, float("nan")]), 1.0),
                ValueError, r"^Expected parameter concentration")


def test_value_validation_messages():
    check_error(lambda lib: lib.distributions.Normal(0.0, 1.0).log_prob(
        lib.tensor([float("nan")])), ValueError,
        r"^Expected value argument \(Tensor of shape \(1,\)\) to be within the support "
        r"\(Real\(\)\) of the distribution Normal\(loc: 0.0, scale: 1.0\), but found invalid "
        r"values:\n")
    check_error(lambda lib: lib.distributions.Bernoulli(0.5).log_prob(lib.tensor([0.5])),
                ValueError, r"to be within the support \(Boolean\(\)\) of the distribution "
                r"Bernoulli\(probs: 0.5\)")
    check_error(lambda lib: lib.distributions.Exponential(1.0).cdf(lib.tensor([-1.0])),
                ValueError, r"GreaterThanEq\(lower_bound=0.0\)")
    check_error(lambda lib: lib.distributions.Categorical(lib.ones(3)).log_prob(
        lib.tensor([3])), ValueError, r"IntegerInterval\(lower_bound=0, upper_bound=2\)")
    check_error(lambda lib: lib.distributions.Normal(0.0, 1.0).log_prob(1.0), ValueError,
                "^The value argument to log_prob must be a Tensor")
    check_error(lambda lib: lib.distributions.Normal(lib.zeros(3), 1.0).log_prob(lib.zeros(2)),
                ValueError, r"^Value is not broadcastable with batch_shape\+event_shape: "
                r"torch.Size\(\[2\]\) vs torch.Size\(\[3\]\)\.")


def test_validate_args_false_skips_checks():
    check(lambda lib, s: lib.distributions.Normal(0.0, s, validate_args=False).log_prob(
        lib.tensor([1.0, 2.0])), np.array([-1.0, 1.0], dtype="float32"), grad=False)
    check(lambda lib: lib.distributions.Bernoulli(0.3, validate_args=False).log_prob(
        lib.tensor([0.5])), grad=False)


def test_set_default_validate_args():
    D = ember.distributions.Distribution
    try:
        D.set_default_validate_args(False)
        ember.distributions.Normal(0.0, -1.0)            # no error while disabled
        with pytest.raises(ValueError):
            ember.distributions.Normal(0.0, -1.0, validate_args=True)
    finally:
        D.set_default_validate_args(True)
    with pytest.raises(ValueError):
        ember.distributions.Normal(0.0, -1.0)
    with pytest.raises(ValueError):
        D.set_default_validate_args("yes")
    assert D._validate_args is torch.distributions.Distribution._validate_args is True


def test_lazy_logits_are_not_validated_and_appear_in_repr_once_computed():
    for lib in (torch, ember):
        dist = lib.distributions.Bernoulli(probs=lib.tensor([0.2, 0.7]))
        assert repr(dist) == "Bernoulli(probs: torch.Size([2]))"
        dist.logits
        assert repr(dist) == "Bernoulli(probs: torch.Size([2]), logits: torch.Size([2]))"


def test_perplexity_and_stddev():
    check(lambda lib, s: lib.distributions.Normal(0.0, s).perplexity(),
          np.array([0.5, 2.0], dtype="float32"))
    check(lambda lib, r: lib.distributions.Gamma(r, 2.0).stddev, np.array([0.5, 2.0]),
          dtype="float64")


def test_unimplemented_methods_raise():
    Normal = ember.distributions.Normal
    with pytest.raises(NotImplementedError):
        Normal(0.0, 1.0).enumerate_support()
    with pytest.raises(NotImplementedError):
        ember.distributions.Gamma(1.0, 1.0).icdf(ember.tensor(0.3))
    with pytest.raises(NotImplementedError):
        ember.distributions.Poisson(1.0).rsample()
    with pytest.raises(NotImplementedError, match="does not implement mean"):
        ember.distributions.Distribution(validate_args=False).mean
    check_error(lambda lib: lib.distributions.Normal(lib.zeros(2), 1.0).expand([3]),
                RuntimeError, r"^The expanded size of the tensor \(3\) must match the "
                r"existing size \(2\) at non-singleton dimension 0")


def test_sample_n_warns_and_samples():
    with pytest.warns(UserWarning, match="sample_n will be deprecated"):
        out = ember.distributions.Normal(ember.zeros(2), 1.0).sample_n(4)
    assert out.shape == (4, 2)


def test_subclass_with_custom_init_must_define_expand():
    class Shifted(ember.distributions.Normal):
        def __init__(self, loc):
            super().__init__(loc, 1.0)

    with pytest.raises(NotImplementedError, match="^Subclass Shifted of Normal that defines "
                                                  "a custom __init__ method must also define"):
        Shifted(ember.zeros(2)).expand((3, 2))


def _first_derivatives(lib, dist_fn, values, *params):
    """d(sum log_prob)/d params, kept differentiable (create_graph) for a second pass."""
    dtype = lib.int64 if isinstance(values[0], int) else lib.float64
    log_prob = dist_fn(lib.distributions, *params).log_prob(lib.tensor(values, dtype=dtype))
    return lib.autograd.grad(log_prob.sum(), list(params), create_graph=True)


@pytest.mark.parametrize("name,dist_fn,values,kinds", [
    ("Normal", lambda D, a, b: D.Normal(a, b), [0.3, -1.0], ["real", "positive"]),
    ("Gamma", lambda D, a, b: D.Gamma(a, b), [0.3, 2.0], ["positive", "positive"]),
    ("Beta", lambda D, a, b: D.Beta(a, b), [0.3, 0.8], ["positive", "positive"]),
    ("Categorical", lambda D, a: D.Categorical(logits=a), [0, 1], ["real"]),
])
def test_double_backward(name, dist_fn, values, kinds):
    shape = (2, 3) if name == "Categorical" else (2,)
    params = draw_all(kinds, [shape] * len(kinds), "float64")
    check(lambda lib, *ps: _first_derivatives(lib, dist_fn, values, *ps), *params,
          dtype="float64")


def test_multivariate_normal_double_backward():
    a = np.array([[1.0, 0.2], [0.3, 0.8]])
    loc = np.array([0.5, -0.5])

    def fn(lib, loc, a):
        dist = lib.distributions.MultivariateNormal(loc, a @ a.mT + lib.eye(2, dtype=a.dtype))
        return lib.autograd.grad(dist.log_prob(lib.ones(3, 2, dtype=a.dtype)).sum(), [loc, a],
                                 create_graph=True)
    check(fn, loc, a, dtype="float64")


def test_gamma_rsample_cannot_be_differentiated_twice():
    def fn(lib):
        concentration = lib.tensor([2.0], requires_grad=True)
        x = lib.distributions.Gamma(concentration, 1.0).rsample()
        (grad,) = lib.autograd.grad(x.sum(), [concentration], create_graph=True)
        lib.autograd.grad(grad.sum(), [concentration])
    check_error(fn, NotImplementedError,
                "^the derivative for '_standard_gamma_grad' is not implemented")
