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
            "independent": lambda: C.independent(C.positive, 1),
            "cat": lambda: C.cat([C.positive, C.unit_interval, C.real], dim=1,
                                 lengths=[1, 1, 2]),
            "stack": lambda: C.stack([C.positive, C.unit_interval, C.real, C.less_than(0.0)],
                                     dim=1),
            "stack_event": lambda: C.stack([C.simplex, C.real_vector], dim=-1)}
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
ROWS = np.array([[0.5, 0.5, -3.0, -1.0], [-1.0, 0.2, 1.0, 2.0], [2.0, 1.5, 0.0, 0.0],
                 [1.0, 0.0, 5.0, 1.0]])
CORR = np.array([[[1.0, 0.0], [0.6, 0.8]], [[1.0, 0.0], [0.6, 0.7]],
                 [[1.0, 0.0], [-0.6, -0.8]], [[1.0, 0.1], [0.6, 0.8]]])


@pytest.mark.parametrize("name,values", [
    ("simplex", VECTORS), ("one_hot", VECTORS), ("real_vector", VECTORS),
    ("independent", VECTORS), ("lower_cholesky", MATRICES), ("lower_triangular", MATRICES),
    ("positive_definite", MATRICES), ("positive_semidefinite", MATRICES),
    ("symmetric", MATRICES), ("square", MATRICES), ("corr_cholesky", CORR), ("cat", ROWS),
    ("stack", ROWS), ("stack_event", ROWS[:, :2])])
def test_event_constraints(name, values):
    check(lambda lib, v: _constraint(lib, name).check(v), values, dtype="float64", grad=False)
    assert repr(_constraint(ember, name)) == repr(_constraint(torch, name))
    for attribute in ("event_dim", "is_discrete"):
        assert getattr(_constraint(ember, name), attribute) == \
            getattr(_constraint(torch, name), attribute)


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


def test_constraint_errors():
    check_error(lambda lib: lib.distributions.constraints.cat([1.0]), AssertionError,
                "^All elements of cseq must be Constraint instances")
    check_error(lambda lib: lib.distributions.constraints.cat(
        [lib.distributions.constraints.real], lengths=[1, 1]), AssertionError,
        r"^lengths \(2\) must match cseq \(1\)")
    check_error(lambda lib: lib.distributions.constraints.stack(
        [lib.distributions.constraints.real], dim=2).check(lib.ones(3)), AssertionError,
        "^dim 2 out of range for value with 1 dimensions")


# ------------------------------------------------------------------ transforms

def _transform(lib, name, dtype="float64"):
    T = lib.distributions.transforms
    float_type = getattr(lib, dtype)
    D = lib.distributions
    made = {
        "Affine": lambda: T.AffineTransform(0.5, -2.0),
        "AffineVector": lambda: T.AffineTransform(lib.tensor([1.0, 2.0, 3.0]),
                                                  lib.tensor([0.5, -1.0, 2.0]), event_dim=1),
        "Power": lambda: T.PowerTransform(3.0),
        "Compose": lambda: T.ComposeTransform([T.AffineTransform(0.3, 1.5),
                                               T.SigmoidTransform()]),
        "InverseExp": lambda: T.ExpTransform().inv,
        "Reshape": lambda: T.ReshapeTransform((6,), (2, 3)),
        "Independent": lambda: T.IndependentTransform(T.ExpTransform(), 1),
        "IndependentAffine": lambda: T.IndependentTransform(
            T.AffineTransform(1.0, lib.tensor([2.0, -0.5, 3.0, 1.5, -1.0, 0.7], dtype=float_type)),
            2),
        "Cat": lambda: T.CatTransform([T.ExpTransform(), T.SoftplusTransform(),
                                       T.AffineTransform(1.0, -2.0)], dim=-1, lengths=[2, 1, 3]),
        "CatBatch": lambda: T.CatTransform([T.ExpTransform(), T.TanhTransform()], dim=0,
                                           lengths=[2, 2]),
        "CatEvent": lambda: T.CatTransform([T.StickBreakingTransform(),
                                            T.StickBreakingTransform()], dim=0, lengths=[1, 3]),
        "Stack": lambda: T.StackTransform([T.ExpTransform(), T.SigmoidTransform(),
                                           T.SoftplusTransform()], dim=1),
        "StackNeg": lambda: T.StackTransform([T.ExpTransform()] * 6, dim=-1),
        "Cdf": lambda: T.CumulativeDistributionTransform(
            D.Normal(lib.tensor(0.5, dtype=float_type), 2.0)),
    }
    return made[name]() if name in made else getattr(T, name + "Transform")()


# transform name -> (kind of x in its domain, shape of x)
TRANSFORMS = {
    "Exp": ("real", (4, 3)), "Affine": ("real", (4, 3)), "AffineVector": ("real", (4, 3)),
    "Sigmoid": ("real", (4, 3)), "Tanh": ("real", (4, 3)), "Power": ("positive", (4, 3)),
    "Compose": ("real", (4, 3)), "InverseExp": ("positive", (4, 3)),
    "Softplus": ("real", (4, 6)), "StickBreaking": ("real", (4, 6)),
    "CorrCholesky": ("real", (4, 6)), "Reshape": ("real", (4, 6)),
    "Independent": ("real", (4, 6)), "IndependentAffine": ("real", (4, 6)),
    "Cat": ("real", (4, 6)), "CatBatch": ("real", (4, 6)), "CatEvent": ("real", (4, 6)),
    "Stack": ("real", (4, 3)), "StackNeg": ("real", (4, 6)), "Cdf": ("real", (4, 6)),
}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", list(TRANSFORMS))
def test_transform_forward_inverse_jacobian(name, dtype):
    kind, shape = TRANSFORMS[name]
    x = draw(kind, shape, dtype)

    def fn(lib, x):
        t = _transform(lib, name, dtype)
        y = t(x)
        return y, t.inv(y), t.log_abs_det_jacobian(x, y)
    _, x_back, _ = check(fn, x, dtype=dtype)
    np.testing.assert_allclose(x_back.detach().numpy(), x,
                               atol=1e-4 if dtype == "float32" else 1e-9)


@pytest.mark.parametrize("name", list(TRANSFORMS))
def test_transform_properties_like_torch(name):
    t, e = _transform(torch, name), _transform(ember, name)
    assert repr(e) == repr(t)
    assert e.bijective == t.bijective
    for attribute in ("domain", "codomain"):
        assert repr(getattr(e, attribute)) == repr(getattr(t, attribute))
        assert getattr(e, attribute).event_dim == getattr(t, attribute).event_dim
    assert e.inv.inv is e
    shape = TRANSFORMS[name][1]
    assert tuple(e.forward_shape(shape)) == tuple(t.forward_shape(shape))
    out_shape = t.forward_shape(shape)
    assert tuple(e.inverse_shape(out_shape)) == tuple(t.inverse_shape(out_shape))
    assert _sign(e) == _sign(t)


def _sign(transform):
    """The transform's sign as a plain value, or None where it has none."""
    try:
        sign = transform.sign
    except NotImplementedError:
        return None
    return sign if isinstance(sign, int) else sign.tolist()


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


def test_signs_and_equality():
    for lib in (torch, ember):
        T = lib.distributions.transforms
        assert T.SoftplusTransform().sign == 1
        assert T.IndependentTransform(T.AffineTransform(0.0, -1.0), 1).sign == -1
        assert T.SoftplusTransform() == T.SoftplusTransform()
        assert T.StickBreakingTransform() == T.StickBreakingTransform()
        assert T.LowerCholeskyTransform() != T.PositiveDefiniteTransform()
        assert T.CorrCholeskyTransform() != T.CorrCholeskyTransform()
        reshape = T.ReshapeTransform((2, 3), (6,))
        assert reshape == reshape and reshape != T.ReshapeTransform((2, 3), (6,))
        assert not T.LowerCholeskyTransform().bijective
        cached = T.IndependentTransform(T.ExpTransform(), 1).with_cache()
        assert cached._cache_size == 1 and cached.base_transform._cache_size == 1


@pytest.mark.parametrize("dtype", DTYPES)
def test_lower_cholesky_and_positive_definite(dtype):
    x = draw("real", (3, 4, 4), dtype)

    def fn(lib, x):
        T = lib.distributions.transforms
        lower, pd = T.LowerCholeskyTransform(), T.PositiveDefiniteTransform()
        return lower(x), lower.inv(lower(x)), pd(x), pd.inv(pd(x))
    check(fn, x, dtype=dtype, non_contiguous=True)


def test_matrix_transform_properties():
    for name in ("LowerCholeskyTransform", "PositiveDefiniteTransform"):
        t = getattr(torch.distributions.transforms, name)()
        e = getattr(ember.distributions.transforms, name)()
        assert repr(e) == repr(t) and repr(e.codomain) == repr(t.codomain)
        assert e.domain.event_dim == t.domain.event_dim == 2


def test_stick_breaking_lands_on_the_simplex():
    x = draw("real", (5, 3), "float64")
    y = ember.distributions.transforms.StickBreakingTransform()(ember.tensor(x))
    assert y.shape == (5, 4)
    assert bool(ember.distributions.constraints.simplex.check(y).all())
    zero = ember.distributions.transforms.StickBreakingTransform()(ember.zeros(3))
    assert np.allclose(zero.numpy(), 0.25)


def test_corr_cholesky_gives_correlation_factors():
    x = draw("real", (7, 10), "float64")
    y = ember.distributions.transforms.CorrCholeskyTransform()(ember.tensor(x))
    assert y.shape == (7, 5, 5)
    assert bool(ember.distributions.constraints.corr_cholesky.check(y).all())
    corr = (y @ y.mT).numpy()
    assert np.allclose(np.diagonal(corr, axis1=-2, axis2=-1), 1.0)


def test_double_backward_through_stick_breaking():
    def fn(lib, x):
        t = lib.distributions.transforms.StickBreakingTransform()
        ladj = t.log_abs_det_jacobian(x, t(x)).sum()
        (grad,) = lib.autograd.grad(ladj, x, create_graph=True)
        return grad
    check(fn, draw("real", (2, 3), "float64"), dtype="float64")


def test_transformed_distribution_with_stick_breaking():
    def fn(lib, loc, value):
        D = lib.distributions
        base = D.Independent(D.Normal(loc, 1.0), 1)
        dist = D.TransformedDistribution(base, D.transforms.StickBreakingTransform())
        return dist.log_prob(value)
    value = np.array([[0.2, 0.3, 0.5], [0.1, 0.1, 0.8]])
    check(fn, draw("real", (2, 2), "float64"), value, dtype="float64", grad_inputs=[0])


def test_shape_errors():
    check_error(lambda lib: lib.distributions.transforms.ReshapeTransform((2, 3), (5,)),
                ValueError, "^in_shape, out_shape have different numbers of elements")
    check_error(lambda lib: lib.distributions.transforms.ReshapeTransform(
        (2, 3), (6,)).forward_shape((4, 3, 2)), ValueError, r"^Shape mismatch: expected")
    check_error(lambda lib: lib.distributions.transforms.ReshapeTransform(
        (2, 3), (6,)).forward_shape((3,)), ValueError, "^Too few dimensions on input")
    check_error(lambda lib: lib.distributions.transforms.CorrCholeskyTransform().forward_shape(
        (4,)), ValueError, "^Input is not a flattened lower-diagonal number")
    check_error(lambda lib: lib.distributions.transforms.CorrCholeskyTransform().inverse_shape(
        (3, 4)), ValueError, "^Input is not square")
    check_error(lambda lib: lib.distributions.transforms.StickBreakingTransform().forward_shape(
        ()), ValueError, "^Too few dimensions on input")
    check_error(lambda lib: lib.distributions.transforms.IndependentTransform(
        lib.distributions.transforms.ExpTransform(), 2)(lib.ones(3)), ValueError,
        "^Too few dimensions on input")


def test_cat_stack_errors():
    def cat(lib):
        return lib.distributions.transforms.CatTransform(
            [lib.distributions.transforms.ExpTransform()] * 2, dim=0, lengths=[1, 2])
    check_error(lambda lib: cat(lib)(lib.ones(4)), AssertionError,
                r"^x\.size\(0\) = 4 must equal length 3$")
    check_error(lambda lib: cat(lib).inv(lib.ones(2)), AssertionError,
                r"^y\.size\(0\) = 2 must equal length 3$")
    check_error(lambda lib: cat(lib).log_abs_det_jacobian(lib.ones(3), lib.ones(())),
                AssertionError, "^dim 0 out of range for y with 0 dimensions$")
    check_error(lambda lib: cat(lib)(lib.ones(())), AssertionError,
                "^dim 0 out of range for tensor with 0 dimensions$")
    check_error(lambda lib: lib.distributions.transforms.CatTransform(["exp"]),
                AssertionError, "^All elements of tseq must be Transform instances")
    check_error(lambda lib: lib.distributions.transforms.CatTransform(
        [lib.distributions.transforms.ExpTransform()], lengths=[1, 2]), AssertionError,
        r"^lengths \(2\) must match transforms \(1\)")
    check_error(lambda lib: lib.distributions.transforms.StackTransform(
        [lib.distributions.transforms.ExpTransform()] * 2, dim=1)(lib.ones(2, 3)),
        AssertionError, r"^x\.size\(1\) = 3 must equal len\(transforms\) 2$")
    check_error(lambda lib: lib.distributions.transforms.StackTransform(
        [lib.distributions.transforms.ExpTransform()] * 2, dim=1).log_abs_det_jacobian(
        lib.ones(2), lib.ones(2)), AssertionError, "^dim 1 out of range for x with 1 dimensions$")


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


@pytest.mark.parametrize("name", ["Reshape", "CorrCholesky", "Independent", "Cat"])
def test_transformed_distribution_through_each_transform(name):
    """Shapes and log_prob of a Normal pushed through each transform, as torch."""
    x = draw("real", (4, 6), "float64", seed=3)

    def fn(lib, loc, x):
        D = lib.distributions
        transform = _transform(lib, name)
        dist = D.TransformedDistribution(D.Normal(loc, 1.5), transform)
        value = transform(x)
        assert tuple(dist.batch_shape + dist.event_shape) == tuple(value.shape)
        return dist.log_prob(value), lib.tensor(list(dist.batch_shape + dist.event_shape))
    check(fn, draw("real", (4, 6), "float64"), x, dtype="float64", grad_inputs=[0])


def test_cached_cat_and_stack_return_the_cached_input():
    T = ember.distributions.transforms
    for transform in (T.CatTransform([T.ExpTransform(), T.SoftplusTransform()], cache_size=1),
                      T.StackTransform([T.ExpTransform(), T.SoftplusTransform()]).with_cache(),
                      T.ReshapeTransform((2,), (2, 1)).with_cache(),
                      T.CumulativeDistributionTransform(
                          ember.distributions.Normal(0.0, 1.0)).with_cache()):
        x = ember.tensor([0.3, -0.2])
        y = transform(x)
        assert transform(x) is y and transform.inv(y) is x
        assert all(part._cache_size == 1 for part in getattr(transform, "transforms", []))


def test_corr_cholesky_double_backward():
    def fn(lib, x):
        t = lib.distributions.transforms.CorrCholeskyTransform()
        total = t.log_abs_det_jacobian(x, t(x)).sum() + t(x).pow(3).sum()
        (grad,) = lib.autograd.grad(total, x, create_graph=True)
        return grad
    check(fn, draw("real", (2, 6), "float64"), dtype="float64")
