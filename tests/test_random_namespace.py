"""ember.random (torch.random's namespace) and its agreement with the top-level functions."""
import pytest
import torch

import ember
import ember.random


@pytest.mark.parametrize("name", ["manual_seed", "seed", "initial_seed", "get_rng_state",
                                  "set_rng_state", "default_generator"])
def test_namespace_is_the_top_level(name):
    # (torch's own identity holds until torch._dynamo loads and wraps torch.manual_seed.)
    assert getattr(ember.random, name) is getattr(ember, name)


def test_all_matches_torch():
    assert set(ember.random.__all__) == set(torch.random.__all__)


def test_manual_seed_and_initial_seed():
    generator = ember.random.manual_seed(123)
    assert generator is ember.random.default_generator
    assert ember.random.initial_seed() == 123 == torch.manual_seed(123).initial_seed()
    assert ember.random.manual_seed(-1).initial_seed() == torch.manual_seed(-1).initial_seed()


@pytest.mark.parametrize("seed,error,match", [(2 ** 64, ValueError, "Overflow"),
                                              ("a", ValueError, "invalid literal")])
def test_manual_seed_errors(seed, error, match):
    for lib in (torch, ember):
        with pytest.raises(error, match=match):
            lib.random.manual_seed(seed)


def test_seed_reseeds_from_entropy():
    first = ember.random.seed()
    assert isinstance(first, int) and ember.random.initial_seed() == first
    assert ember.random.seed() != first


def test_state_round_trip_replays_the_stream():
    ember.random.manual_seed(5)
    state = ember.random.get_rng_state()
    assert state.dtype == ember.uint8 and state.ndim == 1
    a = ember.rand(4)
    ember.random.set_rng_state(state)
    assert ember.equal(a, ember.rand(4))
    assert ember.random.initial_seed() == 5


def test_get_rng_state_is_a_copy():
    state = ember.random.get_rng_state()
    before = state.clone()
    ember.rand(3)
    assert ember.equal(state, before)


def test_state_survives_a_save_load(tmp_path):
    ember.random.manual_seed(9)
    ember.save(ember.random.get_rng_state(), tmp_path / "rng.pt")
    a = ember.randn(3)
    ember.random.set_rng_state(ember.load(tmp_path / "rng.pt"))
    assert ember.equal(a, ember.randn(3))


@pytest.mark.parametrize("make,error,match", [
    (lambda lib: lib.zeros(10, dtype=lib.uint8), RuntimeError,
     "Expected a CPUGeneratorImplState of size"),
    (lambda lib: lib.zeros(5056), TypeError, "RNG state must be a torch.ByteTensor"),
])
def test_set_rng_state_errors(make, error, match):
    for lib in (torch, ember):
        with pytest.raises(error, match=match):
            lib.random.set_rng_state(make(lib))


def test_set_rng_state_rejects_a_corrupt_position():
    for lib in (torch, ember):
        state = lib.random.get_rng_state().clone()
        state[8:12] = 255    # the twister's `left` counter, as torch lays the state out
        with pytest.raises(RuntimeError, match="^Invalid mt19937 state"):
            lib.random.set_rng_state(state)


def test_generator_state_round_trip():
    g = ember.Generator().manual_seed(3)
    state = g.get_state()
    a = ember.randn(3, generator=g)
    g.set_state(state)
    assert ember.equal(a, ember.randn(3, generator=g)) and g.initial_seed() == 3


@pytest.mark.parametrize("lib", [torch, ember])
def test_fork_rng_restores_the_state(lib):
    lib.random.manual_seed(0)
    with lib.random.fork_rng():
        inside = lib.rand(3)
    after = lib.rand(3)
    assert lib.equal(inside, after)     # the block's draws did not advance the generator


@pytest.mark.parametrize("lib", [torch, ember])
def test_fork_rng_restores_after_an_exception_and_a_reseed(lib):
    lib.random.manual_seed(0)
    expected = lib.rand(2)
    lib.random.manual_seed(0)
    with pytest.raises(KeyError):
        with lib.random.fork_rng(devices=[]):
            lib.random.manual_seed(99)
            raise KeyError
    assert lib.equal(lib.rand(2), expected)


@pytest.mark.parametrize("lib", [torch, ember])
def test_fork_rng_disabled_is_a_no_op(lib):
    lib.random.manual_seed(0)
    first = lib.rand(2)
    lib.random.manual_seed(0)
    with lib.random.fork_rng(enabled=False):
        lib.rand(2)
    assert not lib.equal(lib.rand(2), first)


def test_fork_rng_with_devices_needs_cuda():
    for lib in (torch, ember):
        with pytest.raises(AssertionError, match="Torch not compiled with CUDA enabled"):
            with lib.random.fork_rng(devices=[0]):
                pass


def test_thread_safe_generator_outside_workers():
    assert ember.random.thread_safe_generator() is None is torch.random.thread_safe_generator()
