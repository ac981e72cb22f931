"""Random sampling: determinism of seeds/generators/states, shapes, dtypes, distributions.

ember does not reproduce torch's exact numbers; it reproduces its API, shapes, dtypes,
errors and distributions (checked statistically with fixed seeds).
"""
import numpy as np
import pytest
import torch

import ember
from oracle import check_error

SAMPLERS = {
    "rand": lambda lib, **kw: lib.rand(3, 4, **kw),
    "randn": lambda lib, **kw: lib.randn(3, 4, **kw),
    "randint": lambda lib, **kw: lib.randint(0, 100, (3, 4), **kw),
    "randperm": lambda lib, **kw: lib.randperm(20, **kw),
    "normal": lambda lib, **kw: lib.normal(0.0, 1.0, (3, 4), **kw),
    "bernoulli": lambda lib, **kw: lib.bernoulli(lib.full((3, 4), 0.5), **kw),
    "multinomial": lambda lib, **kw: lib.multinomial(lib.ones(5), 3, **kw),
}


@pytest.mark.parametrize("name", SAMPLERS)
def test_manual_seed_repeats_sequence(name):
    ember.manual_seed(1234)
    a = SAMPLERS[name](ember)
    b = SAMPLERS[name](ember)
    ember.manual_seed(1234)
    assert SAMPLERS[name](ember).tolist() == a.tolist()
    assert SAMPLERS[name](ember).tolist() == b.tolist()


@pytest.mark.parametrize("name", SAMPLERS)
def test_generator_keyword_is_independent_of_global_state(name):
    g = ember.Generator().manual_seed(7)
    a = SAMPLERS[name](ember, generator=g)
    ember.manual_seed(0)
    g2 = ember.Generator()
    g2.manual_seed(7)
    ember.rand(5)  # global draws do not disturb g2
    assert SAMPLERS[name](ember, generator=g2).tolist() == a.tolist()


@pytest.mark.parametrize("name", SAMPLERS)
def test_rng_state_save_restore(name):
    ember.manual_seed(3)
    state = ember.get_rng_state()
    a = SAMPLERS[name](ember)
    ember.rand(10)
    ember.set_rng_state(state)
    assert SAMPLERS[name](ember).tolist() == a.tolist()


def test_rng_state_is_a_uint8_tensor_and_generator_state():
    for lib in (torch, ember):
        state = lib.get_rng_state()
        assert isinstance(state, lib.Tensor) and state.dtype == lib.uint8 and state.ndim == 1
        g = lib.Generator()
        g.manual_seed(11)
        s = g.get_state()
        x = lib.randn(3, generator=g)
        g.set_state(s)
        assert lib.equal(x, lib.randn(3, generator=g)) if hasattr(lib, "equal") else \
            x.tolist() == lib.randn(3, generator=g).tolist()


def test_seeds():
    for lib in (torch, ember):
        g = lib.manual_seed(42)
        assert isinstance(g, lib.Generator)
        assert lib.initial_seed() == 42
        assert lib.Generator().manual_seed(5).initial_seed() == 5
        assert lib.Generator().manual_seed(-1).initial_seed() == 2 ** 64 - 1
        new = lib.seed()
        assert isinstance(new, int) and lib.initial_seed() == new
    check_error(lambda lib: lib.manual_seed(2 ** 64), ValueError, "^Overflow when unpacking long")


def test_different_seeds_differ():
    ember.manual_seed(1)
    a = ember.rand(10)
    ember.manual_seed(2)
    assert a.tolist() != ember.rand(10).tolist()


@pytest.mark.parametrize("make", [
    lambda lib: lib.rand(2, 3), lambda lib: lib.rand((2, 3)), lambda lib: lib.rand(()),
    lambda lib: lib.rand(0, 3), lambda lib: lib.randn(4, dtype=lib.float64),
    lambda lib: lib.randn(2, dtype=lib.float16), lambda lib: lib.rand(2, dtype=lib.bfloat16),
    lambda lib: lib.randint(10, (2, 2)), lambda lib: lib.randint(3, 10, (5,)),
    lambda lib: lib.randint(0, 5, (2,), dtype=lib.float32), lambda lib: lib.randint(2, size=(3,)),
    lambda lib: lib.randperm(6), lambda lib: lib.randperm(5, dtype=lib.float32),
    lambda lib: lib.normal(0.0, 1.0, size=(2,)), lambda lib: lib.normal(lib.zeros(3), 1.0),
    lambda lib: lib.normal(lib.zeros(2, 3), lib.ones(3)), lambda lib: lib.normal(2.0, lib.ones(3)),
    lambda lib: lib.normal(lib.zeros(3, dtype=lib.float64), 1.0),
    lambda lib: lib.bernoulli(lib.full((3,), 0.5)), lambda lib: lib.bernoulli(lib.ones(2), 0.3),
    lambda lib: lib.bernoulli(lib.full((3,), 0.5, dtype=lib.float64)),
    lambda lib: lib.multinomial(lib.tensor([1.0, 2.0, 3.0]), 2),
    lambda lib: lib.multinomial(lib.ones(2, 3), 4, replacement=True),
    lambda lib: lib.rand_like(lib.ones(2, dtype=lib.float64)), lambda lib: lib.randn_like(lib.ones(3)),
    lambda lib: lib.randint_like(lib.ones(2, 2), 5), lambda lib: lib.randint_like(lib.ones(2), 2, 5),
    lambda lib: lib.poisson(lib.ones(4)),
])
def test_shapes_and_dtypes(make):
    e, t = make(ember), make(torch)
    assert tuple(e.shape) == tuple(t.shape) and repr(e.dtype) == repr(t.dtype)
    assert e.requires_grad == t.requires_grad


def test_requires_grad_keyword():
    for lib in (torch, ember):
        x = lib.randn(2, 3, requires_grad=True)
        assert x.requires_grad and x.is_leaf


@pytest.mark.parametrize("fn,error,match", [
    (lambda lib: lib.rand(2, dtype=lib.int64), NotImplementedError,
     "^\"check_uniform_bounds\" not implemented for 'Long'"),
    (lambda lib: lib.randn(2, dtype=lib.int32), NotImplementedError,
     "^\"normal_kernel_cpu\" not implemented for 'Int'"),
    (lambda lib: lib.ones(3, dtype=lib.int64).normal_(), NotImplementedError,
     "^\"normal_kernel_cpu\" not implemented for 'Long'"),
    (lambda lib: lib.ones(3, dtype=lib.int64).uniform_(), NotImplementedError,
     "^\"check_uniform_bounds\" not implemented for 'Long'"),
    (lambda lib: lib.randint(5, 3, (2,)), RuntimeError,
     "^random_ expects 'from' to be less than 'to', but got from=5 >= to=3"),
    (lambda lib: lib.multinomial(lib.ones(3), 4), RuntimeError,
     r"^cannot sample n_sample > prob_dist.size\(-1\) samples without replacement"),
    (lambda lib: lib.normal(0.0, -1.0, size=(2,)), RuntimeError,
     r"^normal expects std >= 0.0, but found std -1"),
    (lambda lib: lib.bernoulli(lib.full((2,), 1.5)), RuntimeError,
     "^Expected p_in >= 0 && p_in <= 1 to be true, but got false."),
    (lambda lib: lib.multinomial(lib.tensor([1.0, -1.0]), 1), RuntimeError,
     "^probability tensor contains either `inf`, `nan` or element < 0"),
    (lambda lib: lib.rand(2, -1), RuntimeError, "^Trying to create tensor with negative dimension"),
])
def test_errors(fn, error, match):
    check_error(fn, error, match)


# ---------------------------------------------------------------- distributions
N = 200_000


def test_rand_uniform_statistics():
    ember.manual_seed(0)
    x = ember.rand(N).numpy()
    assert 0.0 <= x.min() and x.max() < 1.0
    assert abs(x.mean() - 0.5) < 0.005 and abs(x.var() - 1 / 12) < 0.002


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_randn_statistics(dtype):
    ember.manual_seed(0)
    x = ember.randn(N, dtype=getattr(ember, dtype)).numpy()
    assert abs(x.mean()) < 0.01 and abs(x.std() - 1) < 0.01
    assert abs((np.abs(x) < 1).mean() - 0.6827) < 0.01


def test_normal_with_tensor_mean_and_std():
    ember.manual_seed(0)
    mean = ember.tensor([-5.0, 0.0, 5.0]).expand(N, 3).contiguous()
    std = ember.tensor([0.5, 1.0, 2.0])
    x = ember.normal(mean, std).numpy()
    np.testing.assert_allclose(x.mean(0), [-5, 0, 5], atol=0.02)
    np.testing.assert_allclose(x.std(0), [0.5, 1, 2], rtol=0.02)


def test_randint_covers_range_uniformly():
    ember.manual_seed(0)
    x = ember.randint(3, 8, (N,)).numpy()
    assert set(np.unique(x)) == {3, 4, 5, 6, 7}
    np.testing.assert_allclose(np.bincount(x)[3:] / N, 0.2, atol=0.01)


def test_randperm_is_permutation():
    ember.manual_seed(0)
    assert sorted(ember.randperm(100).tolist()) == list(range(100))


def test_bernoulli_and_multinomial_frequencies():
    ember.manual_seed(0)
    p = ember.tensor([0.1, 0.5, 0.9]).expand(N, 3).contiguous()
    np.testing.assert_allclose(ember.bernoulli(p).numpy().mean(0), [0.1, 0.5, 0.9], atol=0.01)
    draws = ember.multinomial(ember.tensor([1.0, 2.0, 7.0]), N, replacement=True).numpy()
    np.testing.assert_allclose(np.bincount(draws) / N, [0.1, 0.2, 0.7], atol=0.01)
    rows = ember.multinomial(ember.tensor([[0.0, 1.0, 0.0, 3.0]]).expand(5, 4), 2).numpy()
    assert all(sorted(r) == [1, 3] for r in rows.tolist())


@pytest.mark.parametrize("fill,check", [
    (lambda t: t.uniform_(2, 3), lambda x: 2 <= x.min() and x.max() < 3 and abs(x.mean() - 2.5) < 0.01),
    (lambda t: t.normal_(1, 2), lambda x: abs(x.mean() - 1) < 0.03 and abs(x.std() - 2) < 0.03),
    (lambda t: t.bernoulli_(0.25), lambda x: set(np.unique(x)) <= {0, 1} and abs(x.mean() - 0.25) < 0.01),
    (lambda t: t.random_(0, 4), lambda x: set(np.unique(x)) == {0, 1, 2, 3}),
    (lambda t: t.exponential_(2.0), lambda x: x.min() >= 0 and abs(x.mean() - 0.5) < 0.01),
    (lambda t: t.geometric_(0.5), lambda x: x.min() >= 1 and abs(x.mean() - 2) < 0.03),
    (lambda t: t.log_normal_(0.0, 0.5), lambda x: x.min() > 0 and abs(np.log(x).std() - 0.5) < 0.01),
    (lambda t: t.cauchy_(), lambda x: abs(np.median(x)) < 0.02),
])
def test_inplace_fillers(fill, check):
    ember.manual_seed(0)
    t = ember.empty(N)
    out = fill(t)
    assert out is t and t.dtype is ember.float32 and t._version == 1
    assert check(t.numpy())


def test_inplace_fillers_refuse_leaf_requiring_grad_but_work_under_no_grad():
    check_error(lambda lib: lib.ones(3, requires_grad=True).uniform_(), RuntimeError,
                "^a leaf Variable that requires grad is being used in an in-place operation")
    w = ember.ones(3, requires_grad=True)
    with ember.no_grad():
        w.normal_()
    assert w.requires_grad and w.is_leaf
