"""Random number generation: torch's CPU generator, so that a seed gives torch's numbers.

A Generator is torch's: a Mersenne Twister (MT19937) seeded as torch seeds it (the seed's
low 32 bits through the twister's standard initialisation), read as a stream of 32-bit
words; a 64-bit draw is two words, the first the high half. The sampling algorithms that
turn words into values, in torch's order, are in `_sampling.py`. The generator also keeps
torch's cached second normal sample (the scalar normal sampler makes two at a time).
`get_state()` is torch's 5056-byte layout, so states move between torch and ember.

The twister itself is NumPy's (`np.random.MT19937`, the same algorithm).
"""
from __future__ import annotations

import numpy as np

from . import _device
from ._cpu import kernels
from ._recorded_call import replayed_call

_DEFAULT_SEED = 67280421310721  # torch's seed of a new Generator
_MT_WORDS = 624

# torch's CPUGeneratorImplState: the legacy THGeneratorState (initial seed, the twister's
# `left`/`next` counters and words, a cached double normal sample in normal_y when
# normal_is_valid), then a cached float normal sample. A fixed binary layout (never
# pickle: a state read from an untrusted file must not run code).
_STATE_LAYOUT = np.dtype([
    ("seed", "<u8"), ("left", "<i4"), ("seeded", "<i4"), ("next", "<u8"),
    ("key", "<u8", (_MT_WORDS,)), ("normal_x", "<f8"), ("normal_y", "<f8"),
    ("normal_rho", "<f8"), ("normal_is_valid", "<i4"), ("pad", "<i4"),
    ("float_normal", "<f4"), ("float_normal_is_valid", "u1"), ("pad2", "u1", (3,))])


def _twister_words(seed: int) -> np.ndarray:
    """MT19937's standard initialisation from a 32-bit seed (torch's, and the reference
    implementation's init_genrand)."""
    words = [seed & 0xFFFF_FFFF]
    for j in range(1, _MT_WORDS):
        prev = words[-1]
        words.append((1812433253 * (prev ^ (prev >> 30)) + j) & 0xFFFF_FFFF)
    return np.array(words, dtype=np.uint32)


class Generator:
    """A random number generator with its own state: manual_seed, seed, initial_seed, get_state and
    set_state; pass it as `generator=` to random functions."""
    def __init__(self, device="cpu"):
        self.device = _device.device(device)
        self._twister = np.random.MT19937(0)
        self._seed_with(_DEFAULT_SEED)

    def _seed_with(self, seed: int) -> None:
        self._seed = seed
        self._twister.state = {"bit_generator": "MT19937",
                               "state": {"key": _twister_words(seed), "pos": _MT_WORDS}}
        self.next_normal = None     # torch's cached double normal sample

    # Seeding and restoring a state are replayed calls: a compiled call that seeds and then
    # draws draws the same numbers at every replay, as eager calls do.
    @replayed_call
    def manual_seed(self, seed: int) -> "Generator":
        seed = int(seed)
        if not -0x8000_0000_0000_0000 <= seed <= 0xFFFF_FFFF_FFFF_FFFF:
            raise ValueError("Overflow when unpacking long long")
        self._seed_with(seed % (1 << 64))
        return self

    def seed(self) -> int:
        """Reseed from the OS's entropy and return the new seed."""
        new = int(np.random.SeedSequence().entropy % (1 << 63))
        self.manual_seed(new)
        return new

    def initial_seed(self) -> int:
        return self._seed

    def random32(self, n: int) -> np.ndarray:
        """The next n 32-bit words of the stream (uint32)."""
        return kernels.family("twister").words32(self._twister, n)

    def random64(self, n: int) -> np.ndarray:
        """The next n 64-bit values (uint64), each from two words, the first the high half."""
        return kernels.family("twister").words64(self._twister, n)

    def unit_floats(self, n: int, double: bool) -> np.ndarray:
        """The next n uniform draws in [0, 1) as torch makes them: float64 ones from 53
        bits of a 64-bit value when `double`, else float32 ones from 24 bits of a word."""
        return kernels.family("twister").unit_floats(self._twister, n, double)

    def get_state(self):
        """The generator's state as a uint8 tensor, in torch's layout."""
        from ._tensor import Tensor
        twister = self._twister.state["state"]
        record = np.zeros((), dtype=_STATE_LAYOUT)
        record["seed"], record["seeded"] = self._seed, 1
        # torch's counters: words `left` until the twister regenerates, plus one; the
        # index of the `next` word (0 when it must regenerate first, as after seeding)
        record["left"], record["next"] = _MT_WORDS + 1 - twister["pos"], twister["pos"] % _MT_WORDS
        record["key"] = twister["key"]
        if self.next_normal is not None:
            record["normal_y"], record["normal_is_valid"] = self.next_normal, 1
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
        if not 1 <= record["left"] <= _MT_WORDS or record["seeded"] != 1:
            raise RuntimeError("Invalid mt19937 state")
        self._twister.state = {
            "bit_generator": "MT19937",
            "state": {"key": record["key"].astype(np.uint32), "pos": _MT_WORDS + 1 -
                      int(record["left"])}}
        self._seed = int(record["seed"])
        self.next_normal = float(record["normal_y"]) if record["normal_is_valid"] else None
        return self

    def clone_state(self) -> "Generator":
        """A new generator in this one's state."""
        return Generator(self.device).set_state(self.get_state())

    def graphsafe_get_state(self):
        raise NotImplementedError("graphsafe_get_state is not supported in this Generator")

    def graphsafe_set_state(self, state):
        raise NotImplementedError("graphsafe_set_state is not supported in this Generator")

    def get_offset(self) -> int:
        raise RuntimeError("CPU Generator does not use offset")

    def set_offset(self, offset: int):
        raise RuntimeError("CPU Generator does not use offset")

    def __reduce__(self):
        return (_rebuild_generator, (self.get_state()._data.tobytes(),))


def _rebuild_generator(state: bytes):
    from ._tensor import Tensor
    return Generator().set_state(Tensor._wrap(np.frombuffer(state, np.uint8).copy()))


default_generator = Generator()
# As in torch, the default generator starts from a seed of the OS's entropy: a script that
# never seeds draws other numbers at every run (a new Generator starts from torch's fixed
# default seed).
default_generator.seed()


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
