"""Random number generation: torch's Generator API on NumPy's Mersenne Twister.

The streams are deterministic for a given seed, as in torch, but not the same
numbers torch draws (ember does not reimplement torch's sampling kernels).
"""
from __future__ import annotations

import pickle

import numpy as np

_DEFAULT_SEED = 67280421310721  # torch's default_generator initial seed


class Generator:
    def __init__(self, device="cpu"):
        self.device = device
        self._seed = _DEFAULT_SEED
        self.np = np.random.Generator(np.random.MT19937(self._seed))

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
        from ._tensor import Tensor
        blob = pickle.dumps((self._seed, self.np.bit_generator.state))
        return Tensor._wrap(np.frombuffer(blob, dtype=np.uint8).copy())

    def set_state(self, state) -> "Generator":
        self._seed, bit_state = pickle.loads(state._data.tobytes())
        self.np.bit_generator.state = bit_state
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
    return default_generator.seed()


def initial_seed() -> int:
    return default_generator.initial_seed()


def get_rng_state():
    return default_generator.get_state()


def set_rng_state(state) -> None:
    default_generator.set_state(state)


def numpy_generator(generator: Generator | None) -> np.random.Generator:
    return (generator or default_generator).np
