"""nn.init: deterministic initialisers equal torch's; random ones have the right statistics."""
import math

import numpy as np
import pytest
import torch

import ember
import ember.nn  # noqa: F401
from oracle import check_error

init = ember.nn.init


@pytest.mark.parametrize("name,param", [("linear", None), ("conv2d", None), ("sigmoid", None),
                                        ("tanh", None), ("relu", None), ("leaky_relu", None),
                                        ("leaky_relu", 0.2), ("leaky_relu", 1), ("selu", None)])
def test_calculate_gain(name, param):
    assert init.calculate_gain(name, param) == torch.nn.init.calculate_gain(name, param)


@pytest.mark.parametrize("shape", [(3, 4), (5, 3, 2), (6, 2, 3, 3), (2, 3, 1, 2, 2)])
def test_fan_in_fan_out(shape):
    assert init._calculate_fan_in_and_fan_out(ember.empty(shape)) == \
        torch.nn.init._calculate_fan_in_and_fan_out(torch.empty(shape))


def test_errors():
    check_error(lambda lib: lib.nn.init.calculate_gain("foo"), ValueError,
                "^Unsupported nonlinearity foo")
    check_error(lambda lib: lib.nn.init.calculate_gain("leaky_relu", "x"), ValueError,
                "^negative_slope x not a valid number")
    check_error(lambda lib: lib.nn.init.xavier_uniform_(lib.empty(3)), ValueError,
                "^Fan in and fan out can not be computed for tensor with fewer than 2 dimensions")
    check_error(lambda lib: lib.nn.init.kaiming_normal_(lib.empty(3, 3), mode="x"), ValueError,
                r"^Mode x not supported, please use one of \['fan_in', 'fan_out'\]")
    check_error(lambda lib: lib.nn.init.eye_(lib.empty(3)), ValueError,
                "^Only tensors with 2 dimensions are supported")
    check_error(lambda lib: lib.nn.init.dirac_(lib.empty(3, 3)), ValueError,
                "^Only tensors with 3, 4, or 5 dimensions are supported")
    check_error(lambda lib: lib.nn.init.dirac_(lib.empty(3, 3, 3), groups=2), ValueError,
                "^dim 0 must be divisible by groups")
    check_error(lambda lib: lib.nn.init.orthogonal_(lib.empty(3)), ValueError,
                "^Only tensors with 2 or more dimensions are supported")


@pytest.mark.parametrize("fn", [
    lambda lib, t: lib.nn.init.constant_(t, 0.3), lambda lib, t: lib.nn.init.ones_(t),
    lambda lib, t: lib.nn.init.zeros_(t), lambda lib, t: lib.nn.init.eye_(t[0, :, :, 0]),
    lambda lib, t: lib.nn.init.dirac_(t), lambda lib, t: lib.nn.init.dirac_(t, groups=2),
])
def test_deterministic_initialisers(fn):
    t, e = torch.zeros(4, 3, 3, 2), ember.zeros(4, 3, 3, 2)
    fn(torch, t)
    fn(ember, e)
    np.testing.assert_array_equal(e.numpy(), t.numpy())


def test_runs_in_place_on_parameters_without_history():
    p = ember.nn.Parameter(ember.empty(20, 30))
    ptr = p.data_ptr()
    for fn in (init.uniform_, init.normal_, init.xavier_uniform_, init.xavier_normal_,
               init.kaiming_uniform_, init.kaiming_normal_, init.orthogonal_, init.trunc_normal_,
               lambda t: init.sparse_(t, 0.5), lambda t: init.constant_(t, 2.0)):
        assert fn(p) is p
        assert p.data_ptr() == ptr and p.is_leaf and p.grad_fn is None and p.requires_grad


def _sample(fn, shape=(400, 500)):
    ember.manual_seed(0)
    return fn(ember.empty(shape)).numpy()


def test_uniform_normal_statistics():
    u = _sample(lambda t: init.uniform_(t, -2.0, 3.0))
    assert u.min() >= -2 and u.max() < 3 and abs(u.mean() - 0.5) < 0.02
    n = _sample(lambda t: init.normal_(t, 1.0, 2.0))
    assert abs(n.mean() - 1.0) < 0.02 and abs(n.std() - 2.0) < 0.02
    tn = _sample(lambda t: init.trunc_normal_(t, 0.0, 1.0, -1.0, 2.0))
    assert tn.min() >= -1 and tn.max() <= 2
    # Mean of N(0, 1) truncated to [-1, 2]: (pdf(-1) - pdf(2)) / (cdf(2) - cdf(-1)).
    pdf = lambda x: math.exp(-x * x / 2) / math.sqrt(2 * math.pi)  # noqa: E731
    cdf = lambda x: 0.5 * (1 + math.erf(x / math.sqrt(2)))  # noqa: E731
    assert abs(tn.mean() - (pdf(-1) - pdf(2)) / (cdf(2) - cdf(-1))) < 0.01


@pytest.mark.parametrize("kwargs", [{}, {"a": math.sqrt(5)}, {"mode": "fan_out"},
                                    {"nonlinearity": "relu"}])
def test_kaiming_bounds(kwargs):
    shape = (300, 40, 3)
    fan = 40 * 3 if kwargs.get("mode", "fan_in") == "fan_in" else 300 * 3
    gain = init.calculate_gain(kwargs.get("nonlinearity", "leaky_relu"), kwargs.get("a", 0))
    std = gain / math.sqrt(fan)
    u = _sample(lambda t: init.kaiming_uniform_(t, **kwargs), shape)
    bound = math.sqrt(3) * std
    assert np.abs(u).max() <= bound and np.abs(u).max() > 0.99 * bound
    n = _sample(lambda t: init.kaiming_normal_(t, **kwargs), shape)
    assert abs(n.std() - std) < 0.02 * std


def test_xavier_statistics():
    u = _sample(lambda t: init.xavier_uniform_(t, gain=2.0))
    bound = 2.0 * math.sqrt(6.0 / 900)
    assert np.abs(u).max() <= bound and np.abs(u).max() > 0.99 * bound
    n = _sample(lambda t: init.xavier_normal_(t))
    assert abs(n.std() - math.sqrt(2.0 / 900)) < 0.001


@pytest.mark.parametrize("shape", [(6, 6), (4, 10), (10, 4), (5, 2, 3)])
def test_orthogonal(shape):
    w = _sample(lambda t: init.orthogonal_(t, gain=1.5), shape).reshape(shape[0], -1)
    rows, cols = w.shape
    gram = w @ w.T if rows <= cols else w.T @ w
    np.testing.assert_allclose(gram, 1.5 ** 2 * np.eye(min(rows, cols)), atol=1e-5)


def test_sparse():
    w = _sample(lambda t: init.sparse_(t, 0.3, std=0.5), (10, 200))
    assert ((w == 0).sum(axis=0) == 3).all()
    assert abs(w[w != 0].std() - 0.5) < 0.05


def test_float64_and_generator():
    g = ember.Generator().manual_seed(3)
    a = init.normal_(ember.empty(3, 4, dtype=ember.float64), generator=g)
    g.manual_seed(3)
    b = init.normal_(ember.empty(3, 4, dtype=ember.float64), generator=g)
    assert a.dtype == ember.float64 and np.array_equal(a.numpy(), b.numpy())


def test_zero_element_warning_and_deprecated_names():
    for lib in (torch, ember):
        with pytest.warns(UserWarning, match="Initializing zero-element tensors is a no-op"):
            lib.nn.init.kaiming_uniform_(lib.empty(0, 3))
        with pytest.warns(FutureWarning, match=r"`nn.init.xavier_uniform` is now deprecated in "
                                               r"favor of `nn.init.xavier_uniform_`."):
            lib.nn.init.xavier_uniform(lib.empty(2, 3))
    with pytest.warns(FutureWarning, match="nn.init.constant"):
        assert init.constant(ember.empty(2), 4.0).numpy().tolist() == [4.0, 4.0]
