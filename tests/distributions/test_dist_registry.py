"""biject_to / transform_to: the same transform (type, parameters, values) as torch's for
every constraint."""
import numpy as np
import pytest
import torch
import torch.distributions.constraint_registry

import ember
import ember.distributions.constraint_registry
from dist_inputs import DTYPES, draw
from oracle import check, check_error


def _registry(lib, which):
    module = torch.distributions.constraint_registry if lib is torch else \
        ember.distributions.constraint_registry
    return getattr(module, which)


def _constraint(lib, name):
    C = lib.distributions.constraints
    made = {
        "greater_than": lambda: C.greater_than(1.5),
        "greater_than_eq": lambda: C.greater_than_eq(-1.0),
        "less_than": lambda: C.less_than(2.0),
        "interval": lambda: C.interval(-1.0, 3.0),
        "interval_tensor": lambda: C.interval(lib.tensor([0.0, 1.0, -2.0]),
                                              lib.tensor([1.0, 4.0, 0.0])),
        "half_open_interval": lambda: C.half_open_interval(0.0, 2.0),
        "independent": lambda: C.independent(C.positive, 1),
        "independent_simplex": lambda: C.independent(C.simplex, 1),
        "cat": lambda: C.cat([C.positive, C.real, C.unit_interval], dim=-1, lengths=[1, 1, 1]),
        "stack": lambda: C.stack([C.positive, C.interval(-2.0, 2.0), C.real], dim=-1),
    }
    return made[name]() if name in made else getattr(C, name)


# constraint -> shape of the unconstrained x
SHAPES = {"real": (4, 3), "positive": (4, 3), "nonnegative": (4, 3), "greater_than": (4, 3),
          "greater_than_eq": (4, 3), "less_than": (4, 3), "interval": (4, 3),
          "interval_tensor": (4, 3), "unit_interval": (4, 3), "half_open_interval": (4, 3),
          "independent": (4, 3), "independent_simplex": (4, 2, 3), "simplex": (4, 3),
          "corr_cholesky": (4, 3), "cat": (4, 3), "stack": (4, 3), "real_vector": (4, 3)}
MATRIX_ONLY = {"lower_cholesky": (4, 3, 3), "positive_definite": (4, 3, 3),
               "positive_semidefinite": (4, 3, 3)}


def _structure(transform):
    """Type names and plain parameters of a transform, recursively, for comparison."""
    parts = [type(transform).__name__]
    for name in ("parts", "transforms"):
        if hasattr(transform, name):
            parts.append([_structure(t) for t in getattr(transform, name)])
    if hasattr(transform, "base_transform"):
        parts += [_structure(transform.base_transform), transform.reinterpreted_batch_ndims]
    for name in ("loc", "scale", "dim", "lengths"):
        value = getattr(transform, name, None)
        parts.append(value.tolist() if hasattr(value, "tolist") else value)
    return parts


@pytest.mark.parametrize("which", ["biject_to", "transform_to"])
@pytest.mark.parametrize("name", list(SHAPES) + list(MATRIX_ONLY))
def test_registered_transform_matches_torch(name, which):
    if which == "biject_to" and name in MATRIX_ONLY:
        check_error(lambda lib: _registry(lib, which)(_constraint(lib, name)),
                    NotImplementedError, r"^Cannot transform _\w+ constraints$")
        return
    t = _registry(torch, which)(_constraint(torch, name))
    e = _registry(ember, which)(_constraint(ember, name))
    assert _structure(e) == _structure(t)
    assert e.bijective == t.bijective


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("which", ["biject_to", "transform_to"])
@pytest.mark.parametrize("name", list(SHAPES))
def test_values_land_in_the_constraint(name, which, dtype):
    x = draw("real", SHAPES[name], dtype)

    def fn(lib, x):
        transform = _registry(lib, which)(_constraint(lib, name))
        y = transform(x)
        if not transform.bijective:     # softmax: no Jacobian, and inv is one of many preimages
            return y, transform(transform.inv(y))
        return y, transform.inv(y), transform.log_abs_det_jacobian(x, y)
    y = check(fn, x, dtype=dtype, atol=1e-4 if dtype == "float32" else None)[0]
    assert bool(_constraint(ember, name).check(y).all())


@pytest.mark.parametrize("name", list(MATRIX_ONLY))
def test_matrix_constraints_through_transform_to(name):
    x = draw("real", MATRIX_ONLY[name], "float64")

    def fn(lib, x):
        transform = _registry(lib, "transform_to")(_constraint(lib, name))
        return transform(x)
    y = check(fn, x, dtype="float64")
    assert bool(_constraint(ember, name).check(y).all())


def test_unregistered_constraints_raise():
    for name in ("boolean", "one_hot", "nonnegative_integer", "symmetric", "square"):
        for which in ("biject_to", "transform_to"):
            check_error(lambda lib: _registry(lib, which)(_constraint(lib, name)),
                        NotImplementedError, r"^Cannot transform _\w+ constraints$")
    error = check_error(lambda lib: _registry(lib, "biject_to")(lib.distributions.constraints
                                                                .lower_cholesky),
                        NotImplementedError, "^Cannot transform _LowerCholesky constraints$")
    assert error is not None


def test_register_custom_constraint():
    Registry = ember.distributions.constraint_registry.ConstraintRegistry
    C = ember.distributions.constraints
    T = ember.distributions.transforms

    class _Odd(C.Constraint):
        pass
    registry = Registry()
    registry.register(_Odd, lambda constraint: T.ExpTransform())

    @registry.register(C.positive)
    def _soft(constraint):
        return T.SoftplusTransform()
    assert isinstance(registry(_Odd()), T.ExpTransform)
    assert isinstance(registry(C.greater_than(3.0)), T.SoftplusTransform)
    y = registry(C.positive)(ember.tensor([-30.0, 0.0]))
    np.testing.assert_allclose(y.numpy(), np.log1p(np.exp([-30.0, 0.0])), rtol=1e-6)
    check_error(lambda lib: lib.distributions.constraint_registry.ConstraintRegistry().register(
        3, lambda c: None), TypeError,
        "^Expected constraint to be either a Constraint subclass or instance, but got 3$")
