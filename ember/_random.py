"""Random number generation: torch's Generator API on NumPy's Mersenne Twister.

The streams are deterministic for a given seed, as in torch, but not the same
numbers torch draws (ember does not reimplement torch's sampling kernels).
"""
from __future__ import annotations

import numpy as np

from ._recorded_call import replayed_call

_DEFAULT_SEED = 67280421310721  # torch's default_generator initial seed

# A state tensor is a fixed binary layout (never pickle: a state read from an untrusted
# file must not run code): initial seed and Mersenne Twister position as two uint64,
# then the twister's 624 uint32 words.
_MT_WORDS = 624
_STATE_LAYOUT = np.dtype([("seed", "<u8"), ("pos", "<u8"), ("key", "<u4", (_MT_WORDS,))])


class Generator:
    """A random number generator with its own state: manual_seed, seed, initial_seed, get_state and
    set_state; pass it as `generator=` to random functions."""
    def __init__(self, device="cpu"):
        self.device = device
        self._seed = _DEFAULT_SEED
        self.np = np.random.Generator(np.random.MT19937(self._seed))

    # Seeding and restoring a state are replayed calls: a compiled call that seeds and then
    # draws draws the same numbers at every replay, as eager calls do.
    @replayed_call
    def manual_seed(self, seed: int) -> "Generator":
        seed = int(seed)
        if not -0x8000_0000_0000_0000 <= seed <= 0xFFFF_FFFF_FFFF_FFFF:
            raise ValueError("Overflow when unpacking long long")
        self._seed = seed % (1 << 64)
        self.np = np.random.Generator(np.random.MT19937(self._seed))
        return self

    def seed(self) -> int:
        """Reseed from the OS's entropy and return the new seed."""
        new = int(np.random.SeedSequence().entropy % (1 << 63))
        self.manual_seed(new)
        return new

    def initial_seed(self) -> int:
        return self._seed

    def get_state(self):
        """The generator's state as a uint8 tensor (ember's layout, not torch's)."""
        from ._tensor import Tensor
        twister = self.np.bit_generator.state["state"]
        record = np.array((self._seed, twister["pos"], twister["key"]), dtype=_STATE_LAYOUT)
        return Tensor._wrap(record.reshape(1).view(np.uint8).copy())

    @replayed_call
    def set_state(self, new_state) -> "Generator":
        data = np.ascontiguousarray(new_state._data)
        if data.dtype != np.uint8:
            raise TypeError("RNG state must be a torch.ByteTensor")
        if data.size != _STATE_LAYOUT.itemsize:
            raise RuntimeError(f"Expected a CPUGeneratorImplState of size "
                               f"{_STATE_LAYOUT.itemsize} but found the input RNG state size "
                               f"to be {data.size}")
        record = data.reshape(-1).view(_STATE_LAYOUT)[0]
        if record["pos"] > _MT_WORDS:
            raise RuntimeError("Invalid RNG state: the Mersenne Twister position is out of "
                               "range. The tensor was not made by get_rng_state().")
        self.np.bit_generator.state = {
            "bit_generator": "MT19937",
            "state": {"key": record["key"].copy(), "pos": int(record["pos"])}}
        self._seed = int(record["seed"])
        return self

    def __reduce__(self):
        return (_rebuild_generator, (self._seed, self.np.bit_generator.state))


def _rebuild_generator(seed, bit_state):
    g = Generator()
    g._seed = seed
    g.np.bit_generator.state = bit_state
    return g


default_generator = Generator()


def manual_seed(seed: int) -> Generator:
    """Seed the default generator (ember's equivalent of torch.manual_seed)."""
    return default_generator.manual_seed(seed)


def seed() -> int:
    """Seed the default generator with a fresh non-deterministic number and return it."""
    return default_generator.seed()


def initial_seed() -> int:
    """The seed the default generator was last seeded with."""
    return default_generator.initial_seed()


def get_rng_state():
    """The default generator's state, as a uint8 tensor."""
    return default_generator.get_state()


def set_rng_state(state) -> None:
    """Restore the default generator's state from a tensor that get_rng_state gave."""
    default_generator.set_state(state)


def numpy_generator(generator: Generator | None) -> np.random.Generator:
    return (generator or default_generator).np
