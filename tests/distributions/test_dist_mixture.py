"""MixtureSameFamily against torch: log_prob, cdf, mean, variance and their gradients for
univariate, vector-event and batched mixtures; sampling; shapes, repr, expand, errors."""
import numpy as np
import pytest
import torch

import ember
from dist_inputs import DTYPES, dists, draw, draw_all
from oracle import check, check_error


def _normal_mixture(lib, weights, loc, scale):
    D = dists(lib)
    return D.MixtureSameFamily(D.Categorical(weights), D.Normal(loc, scale))


def _independent_mixture(lib, weights, loc, scale):
    D = dists(lib)
    return D.MixtureSameFamily(D.Categorical(logits=weights),
                               D.Independent(D.Normal(loc, scale), 1))


def _mvn_mixture(lib, weights, loc, a):
    D = dists(lib)
    covariance = a @ a.mT + lib.eye(a.shape[-1], dtype=a.dtype)
    return D.MixtureSameFamily(D.Categorical(weights), D.MultivariateNormal(loc, covariance))


# name -> (builder, parameter kinds, shape suffixes of (weights, p1, p2) after the batch,
#          event shape, quantities)
MIXTURES = {
    "Normal": (_normal_mixture, ["unit", "real", "positive"], [(3,), (3,), (3,)], (),
               ["log_prob", "cdf", "mean", "variance", "stddev"]),
    "IndependentNormal": (_independent_mixture, ["real", "real", "positive"],
                          [(3,), (3, 2), (3, 2)], (2,), ["log_prob", "mean", "variance"]),
    "MultivariateNormal": (_mvn_mixture, ["unit", "real", "real"], [(3,), (3, 2), (3, 2, 2)],
                           (2,), ["log_prob", "mean", "variance"]),
}
CASES = [(name, q) for name, entry in MIXTURES.items() for q in entry[4]]


def _evaluate(dist, quantity, value):
    if quantity in ("log_prob", "cdf"):
        return getattr(dist, quantity)(value)
    return getattr(dist, quantity)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("batch", [(), (4,), (2, 3)])
@pytest.mark.parametrize("name,quantity", CASES)
def test_quantities_and_gradients(name, quantity, batch, dtype):
    build, kinds, suffixes, event_shape, _ = MIXTURES[name]
    params = draw_all(kinds, [batch + suffix for suffix in suffixes], dtype)
    value = draw("real", (5,) + batch + event_shape, dtype, seed=10)
    tol = {"atol": 1e-4, "rtol": 1e-3} if dtype == "float32" else {}
    check(lambda lib, *xs: _evaluate(build(lib, *xs[:-1]), quantity, xs[-1]), *params, value,
          dtype=dtype, **tol)


def test_mixture_weights_broadcast_over_the_component_batch():
    """One set of weights shared by a (4,)-batch of 3-component mixtures."""
    weights = draw("unit", (3,), "float64")
    loc, scale = draw_all(["real", "positive"], [(4, 3), (4, 3)], "float64")
    value = draw("real", (2, 4), "float64", seed=10)
    for quantity in ("log_prob", "cdf", "mean", "variance"):
        check(lambda lib, w, m, s, v: _evaluate(_normal_mixture(lib, w, m, s), quantity, v),
              weights, loc, scale, value, dtype="float64")


def test_non_contiguous_parameters():
    params = draw_all(["unit", "real", "positive"], [(4, 3)] * 3, "float64")
    value = draw("real", (4,), "float64", seed=10)
    check(lambda lib, w, m, s, v: _normal_mixture(lib, w, m, s).log_prob(v), *params, value,
          dtype="float64", non_contiguous=True)


def _instance(lib):
    return _independent_mixture(lib, lib.zeros(4, 3), lib.zeros(4, 3, 2), lib.ones(4, 3, 2))


def test_shapes_repr_support_and_expand():
    t, e = _instance(torch), _instance(ember)
    assert tuple(e.batch_shape) == tuple(t.batch_shape) == (4,)
    assert tuple(e.event_shape) == tuple(t.event_shape) == (2,)
    assert e.has_rsample == t.has_rsample is False
    assert repr(e) == repr(t)
    assert repr(e.support) == repr(t.support)
    assert e.support.event_dim == t.support.event_dim == 1
    assert e.arg_constraints == t.arg_constraints == {}
    assert e.mixture_distribution is e._mixture_distribution
    te, ee = t.expand((5, 4)), e.expand((5, 4))
    assert tuple(ee.batch_shape) == tuple(te.batch_shape) == (5, 4)
    assert tuple(ee.component_distribution.batch_shape) == (5, 4, 3)
    assert tuple(ee.sample((2,)).shape) == tuple(te.sample((2,)).shape) == (2, 5, 4, 2)
    np.testing.assert_allclose(ee.log_prob(ember.zeros(2)).numpy(),
                               te.log_prob(torch.zeros(2)).numpy(), rtol=1e-6)


def test_support_checks_every_component():
    """A value is valid only inside every component's support (torch's constraint)."""
    check_error(lambda lib: dists(lib).MixtureSameFamily(
        dists(lib).Categorical(lib.ones(2)), dists(lib).Exponential(lib.ones(2))).log_prob(
        lib.tensor([-1.0])), ValueError,
        r"^Expected value argument .* to be within the support "
        r"\(MixtureSameFamilyConstraint\(GreaterThanEq\(lower_bound=0.0\)\)\)")

    def uniform_mixture(lib):
        D = dists(lib)
        return D.MixtureSameFamily(D.Categorical(lib.ones(2)),
                                   D.Uniform(lib.tensor([0.0, 0.0]), lib.tensor([1.0, 2.0])))
    for lib in (torch, ember):
        support = uniform_mixture(lib).support
        assert support.check(lib.tensor([0.5, 1.5, 2.5])).tolist() == [True, False, False]
    check_error(lambda lib: uniform_mixture(lib).log_prob(lib.tensor([1.5])), ValueError,
                r"^Expected value argument")


@pytest.mark.parametrize("build,error", [
    (lambda D, lib: D.MixtureSameFamily(D.Normal(0.0, 1.0), D.Normal(lib.zeros(3), 1.0)),
     "^ The Mixture distribution needs to be an  instance of torch.distributions.Categorical"),
    (lambda D, lib: D.MixtureSameFamily(D.Categorical(lib.ones(3)), lib.zeros(3)),
     "^The Component distribution needs to be an instance of torch.distributions.Distribution"),
    (lambda D, lib: D.MixtureSameFamily(D.Categorical(lib.ones(3)), D.Normal(lib.zeros(4),
                                                                             1.0)),
     r"^`mixture_distribution component` \(3\) does not equal "
     r"`component_distribution.batch_shape\[-1\]` \(4\)"),
    (lambda D, lib: D.MixtureSameFamily(D.Categorical(lib.ones(2, 3)),
                                        D.Normal(lib.zeros(5, 3), 1.0)),
     r"^`mixture_distribution.batch_shape` \(torch.Size\(\[2\]\)\) is not compatible with "
     r"`component_distribution.batch_shape`\(torch.Size\(\[5\]\)\)"),
])
def test_construction_errors(build, error):
    check_error(lambda lib: build(dists(lib), lib), ValueError, error)


# ------------------------------------------------------------------ sampling

N_SAMPLES = 40_000


@pytest.mark.parametrize("dtype", [ember.float32, ember.float64])
@pytest.mark.parametrize("sample_shape", [(), (5,), (2, 3)])
@pytest.mark.parametrize("name", list(MIXTURES))
def test_sample_shape_and_dtype(name, sample_shape, dtype):
    ember.manual_seed(0)
    build, kinds, suffixes, event_shape, _ = MIXTURES[name]
    params = [ember.from_numpy(a) for a in draw_all(kinds, [(2,) + s for s in suffixes],
                                                    str(dtype).replace("torch.", ""))]
    for p in params:
        p.requires_grad_(True)
    mixture = build(ember, *params)
    sample = mixture.sample(sample_shape)
    assert sample.shape == sample_shape + (2,) + event_shape
    assert sample.dtype == dtype and not sample.requires_grad
    with pytest.raises(NotImplementedError):
        mixture.rsample()


@pytest.mark.parametrize("name", list(MIXTURES))
def test_sample_moments(name):
    ember.manual_seed(1)
    build, kinds, suffixes, _, _ = MIXTURES[name]
    params = [ember.from_numpy(a) for a in draw_all(kinds, [(2,) + s for s in suffixes],
                                                    "float64")]
    mixture = build(ember, *params)
    samples = mixture.sample((N_SAMPLES,))
    tolerance = 5 * (mixture.variance / N_SAMPLES).sqrt()
    assert ((samples.mean(0) - mixture.mean).abs() <= tolerance).all()
    np.testing.assert_allclose(samples.var(0).numpy(), mixture.variance.numpy(), rtol=0.1)


def test_samples_come_from_the_chosen_component():
    """Well separated components: every sample lies near one of the component means, in
    proportion to the mixture weights."""
    ember.manual_seed(2)
    weights = ember.tensor([0.1, 0.6, 0.3], dtype=ember.float64)
    loc = ember.tensor([-100.0, 0.0, 100.0], dtype=ember.float64)
    mixture = dists(ember).MixtureSameFamily(dists(ember).Categorical(weights),
                                             dists(ember).Normal(loc, 1.0))
    samples = mixture.sample((N_SAMPLES,))
    component = ((samples + 150) // 100).long()
    assert ((samples - loc[component]).abs() < 10).all()
    frequencies = ember.nn.functional.one_hot(component, 3).double().mean(0)
    tolerance = 5 * (weights * (1 - weights) / N_SAMPLES).sqrt()
    assert ((frequencies - weights).abs() <= tolerance).all()


def test_mean_with_fewer_mixture_batch_dims():
    """torch 2.13 bug: with mixture batch (1, 3) and component batch (5, 1, 3), torch pads
    the weights in the middle and returns a mean of shape (5, 3, 3) instead of the batch
    shape (5, 1, 3); ember's mean equals the mixture of expanded weights."""
    D = dists(ember)
    weights = ember.from_numpy(draw("unit", (1, 3, 4), "float64"))
    loc = ember.from_numpy(draw("real", (5, 1, 3, 4), "float64"))
    mixture = D.MixtureSameFamily(D.Categorical(weights), D.Normal(loc, 1.0))
    assert mixture.mean.shape == mixture.batch_shape == (5, 1, 3)
    expected = (weights / weights.sum(-1, keepdim=True) * loc).sum(-1)
    np.testing.assert_allclose(mixture.mean.numpy(), expected.numpy(), rtol=1e-12)
    t = dists(torch).MixtureSameFamily(dists(torch).Categorical(torch.ones(1, 3, 4)),
                                       dists(torch).Normal(torch.zeros(5, 1, 3, 4), 1.0))
    assert tuple(t.mean.shape) == (5, 3, 3)
