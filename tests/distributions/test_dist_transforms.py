"""Constraints, transforms and TransformedDistribution against torch."""
import numpy as np
import pytest
import torch

import ember
import ember.distributions  # noqa: F401  (binds ember.distributions)
from dist_inputs import DTYPES, draw
from oracle import check, check_error

# ------------------------------------------------------------------ constraints


def _constraint(lib, name):
    C = lib.distributions.constraints
    made = {"integer_interval": lambda: C.integer_interval(0, 3),
            "interval": lambda: C.interval(-1.0, 2.0),
            "half_open_interval": lambda: C.half_open_interval(-1.0, 2.0),
            "greater_than": lambda: C.greater_than(1.0),
            "greater_than_eq": lambda: C.greater_than_eq(1.0),
            "less_than": lambda: C.less_than(1.0),
            "independent": lambda: C.independent(C.positive, 1)}
    return made[name]() if name in made else getattr(C, name)


SCALAR_CONSTRAINTS = ["real", "positive", "nonnegative", "unit_interval", "boolean",
                      "nonnegative_integer", "positive_integer", "integer_interval",
                      "interval", "half_open_interval", "greater_than", "greater_than_eq",
                      "less_than"]
SCALAR_VALUES = np.array([-1.5, -1.0, 0.0, 0.5, 1.0, 2.0, 3.0, 4.0, np.nan, np.inf])


@pytest.mark.parametrize("name", SCALAR_CONSTRAINTS)
def test_scalar_constraints(name):
    check(lambda lib, v: _constraint(lib, name).check(v), SCALAR_VALUES, dtype="float64",
          grad=False)
    assert repr(_constraint(ember, name)) == repr(_constraint(torch, name))
    for attribute in ("event_dim", "is_discrete"):
        assert getattr(_constraint(ember, name), attribute) == \
            getattr(_constraint(torch, name), attribute)


MATRICES = np.array([
    [[1.0, 0.0], [0.5, 2.0]],      # lower Cholesky, not symmetric
    [[2.0, 0.5], [0.5, 1.0]],      # positive definite
    [[1.0, 2.0], [2.0, 1.0]],      # symmetric, indefinite
    [[1.0, 0.0], [0.0, 0.0]],      # positive semidefinite, singular
    [[-1.0, 0.0], [0.3, 1.0]],     # lower triangular, negative diagonal
])
VECTORS = np.array([[0.2, 0.3, 0.5], [0.0, 0.0, 1.0], [0.5, 0.6, -0.1], [0.3, 0.3, 0.3],
                    [1.0, 0.0, 0.0], [1.0, 1.0, 0.0]])


@pytest.mark.parametrize("name,values", [
    ("simplex", VECTORS), ("one_hot", VECTORS), ("real_vector", VECTORS),
    ("independent", VECTORS), ("lower_cholesky", MATRICES), ("lower_triangular", MATRICES),
    ("positive_definite", MATRICES), ("positive_semidefinite", MATRICES),
    ("symmetric", MATRICES), ("square", MATRICES)])
def test_event_constraints(name, values):
    check(lambda lib, v: _constraint(lib, name).check(v), values, dtype="float64", grad=False)
    assert repr(_constraint(ember, name)) == repr(_constraint(torch, name))
    assert _constraint(ember, name).event_dim == _constraint(torch, name).event_dim


def test_dependent_constraint():
    C = ember.distributions.constraints
    assert C.is_dependent(C.dependent) and not C.is_dependent(C.real)
    assert repr(C.dependent) == "Dependent()"
    check_error(lambda lib: lib.distributions.constraints.dependent.check(lib.zeros(1)),
                ValueError, "^Cannot determine validity of dependent constraint")
    check_error(lambda lib: lib.distributions.constraints.dependent.event_dim,
                NotImplementedError, r"^\.event_dim cannot be determined statically")
    assert C.dependent(is_discrete=True, event_dim=1).event_dim == 1
    uniform_support = ember.distributions.Uniform.support
    assert C.is_dependent(uniform_support) and uniform_support.event_dim == 0


# ------------------------------------------------------------------ transforms

def _transform(lib, name):
    T = lib.distributions.transforms
    made = {
        "Affine": lambda: T.AffineTransform(0.5, -2.0),
        "AffineVector": lambda: T.AffineTransform(lib.tensor([1.0, 2.0, 3.0]),
                                                  lib.tensor([0.5, -1.0, 2.0]), event_dim=1),
        "Power": lambda: T.PowerTransform(3.0),
        "Compose": lambda: T.ComposeTransform([T.AffineTransform(0.3, 1.5),
                                               T.SigmoidTransform()]),
        "InverseExp": lambda: T.ExpTransform().inv,
    }
    return made[name]() if name in made else getattr(T, name + "Transform")()


# transform name -> kind of x in its domain
TRANSFORMS = {"Exp": "real", "Affine": "real", "AffineVector": "real", "Sigmoid": "real",
              "Tanh": "real", "Power": "positive", "Compose": "real", "InverseExp": "positive"}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", list(TRANSFORMS))
def test_transform_forward_inverse_jacobian(name, dtype):
    x = draw(TRANSFORMS[name], (4, 3), dtype)

    def fn(lib, x):
        t = _transform(lib, name)
        y = t(x)
        return y, t.inv(y), t.log_abs_det_jacobian(x, y)
    check(fn, x, dtype=dtype)
    assert repr(_transform(ember, name)) == repr(_transform(torch, name))


def test_softmax_transform():
    x = draw("real", (2, 4), "float64")
    check(lambda lib, x: lib.distributions.transforms.SoftmaxTransform()(x), x, dtype="float64")
    check(lambda lib, y: lib.distributions.transforms.SoftmaxTransform().inv(y),
          np.array([[0.2, 0.3, 0.5]]), dtype="float64")


def test_transform_properties():
    for lib in (torch, ember):
        T = lib.distributions.transforms
        compose = T.ComposeTransform([T.ExpTransform(), T.AffineTransform(0.0, -2.0)])
        assert compose.bijective and compose.sign == -1
        assert compose.domain.event_dim == 0
        assert T.ExpTransform() == T.ExpTransform() and T.ExpTransform() != T.TanhTransform()
        assert T.ExpTransform().inv.inv == T.ExpTransform()
        assert type(compose.inv).__name__ == "ComposeTransform"
        assert not T.SoftmaxTransform().bijective
        stacked = T.ComposeTransform([T.AffineTransform(0.0, 2.0), T.SoftmaxTransform()])
        assert stacked.domain.event_dim == 1 and stacked.codomain.event_dim == 1
    check_error(lambda lib: lib.distributions.transforms.ExpTransform(cache_size=2), ValueError,
                "^cache_size must be 0 or 1")


def test_transform_cache_returns_the_same_tensor():
    t = ember.distributions.transforms.ExpTransform(cache_size=1)
    x = ember.tensor([0.5, 1.0])
    y = t(x)
    assert t(x) is y and t.inv(y) is x
    uncached = ember.distributions.transforms.ExpTransform()
    assert uncached(x) is not uncached(x)


def test_compose_jacobian_sums_event_dims():
    """Affine on scalars followed by softmax: per-element terms are summed per vector."""
    x = draw("real", (2, 3), "float64")

    def fn(lib, x):
        T = lib.distributions.transforms
        t = T.ComposeTransform([T.AffineTransform(1.0, 3.0), T.ExpTransform(),
                                T.AffineTransform(0.0, 2.0, event_dim=1)])
        return t.log_abs_det_jacobian(x, t(x))
    check(fn, x, dtype="float64")


# ------------------------------------------------------------------ TransformedDistribution

def _transformed(lib, loc, scale):
    D = lib.distributions
    T = D.transforms
    return D.TransformedDistribution(D.Normal(loc, scale),
                                     [T.AffineTransform(1.0, -2.0), T.SigmoidTransform()])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("method", ["log_prob", "cdf", "icdf"])
def test_transformed_distribution(method, dtype):
    loc, scale = draw("real", (3,), dtype), draw("positive", (3,), dtype, seed=1)
    value = draw("unit", (2, 3), dtype, seed=2)
    check(lambda lib, loc, scale, v: getattr(_transformed(lib, loc, scale), method)(v),
          loc, scale, value, dtype=dtype)


def test_transformed_distribution_shapes_and_support():
    for lib in (torch, ember):
        D = lib.distributions
        dist = _transformed(lib, lib.zeros(2, 3), 1.0)
        assert dist.batch_shape == (2, 3) and dist.event_shape == ()
        assert repr(dist.support) == "Interval(lower_bound=0.0, upper_bound=1.0)"
        sample = dist.rsample((4,))
        assert sample.shape == (4, 2, 3) and sample.requires_grad is False
        assert ((sample > 0) & (sample < 1)).all()
        assert dist.expand((5, 2, 3)).batch_shape == (5, 2, 3)
        vector = D.TransformedDistribution(D.Normal(lib.zeros(2, 3), 1.0),
                                           D.transforms.SoftmaxTransform())
        assert vector.batch_shape == (2,) and vector.event_shape == (3,)
        assert type(vector.base_dist).__name__ == "Independent"
    assert repr(_transformed(ember, ember.zeros(2), 1.0)) == "TransformedDistribution()"
    check_error(lambda lib: lib.distributions.TransformedDistribution(
        lib.distributions.Normal(0.0, 1.0), "exp"), ValueError,
        "^transforms must be a Transform or list, but was exp")
    check_error(lambda lib: lib.distributions.TransformedDistribution(
        lib.distributions.Normal(0.0, 1.0), ["exp"]), ValueError,
        "^transforms must be a Transform or a list of Transforms")


def test_lognormal_is_a_transformed_normal():
    dist = ember.distributions.LogNormal(ember.zeros(2), ember.ones(2))
    assert isinstance(dist, ember.distributions.TransformedDistribution)
    assert isinstance(dist.base_dist, ember.distributions.Normal)
    assert repr(dist) == repr(torch.distributions.LogNormal(torch.zeros(2), torch.ones(2)))
    check(lambda lib, loc: lib.distributions.LogNormal(loc, 0.5).expand((4, 2)).log_prob(
        lib.ones(4, 2)), draw("real", (2,), "float64"), dtype="float64")
