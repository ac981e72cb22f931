"""ember.random: torch.random's namespace over ember's one CPU generator.

The functions are the very objects ember exposes at top level (ember.manual_seed is
ember.random.manual_seed), so both names always act on the same default_generator.
"""
from __future__ import annotations

import contextlib
from typing import Iterator

from ._random import (Generator, default_generator, get_rng_state, initial_seed,  # noqa: F401
                      manual_seed, seed, set_rng_state)

__all__ = ["set_rng_state", "get_rng_state", "manual_seed", "seed", "initial_seed",
           "fork_rng", "thread_safe_generator"]


@contextlib.contextmanager
def fork_rng(devices=None, enabled: bool = True, _caller: str = "fork_rng",
             _devices_kw: str = "devices", device_type: str | None = None) -> Iterator[None]:
    """Run the block, then put the CPU generator back in the state it had on entry.

    ember has no accelerator, so `devices` must be empty (or None, meaning every one
    of none); `enabled=False` makes this a no-op.
    """
    if device_type == "meta" or not enabled:
        yield
        return
    if devices is not None and list(devices):
        # torch's words on a build without CUDA (its check is an assert).
        raise AssertionError("Torch not compiled with CUDA enabled. ember runs on the CPU "
                             "only: pass devices=[] or leave devices unset.")
    state = get_rng_state()
    try:
        yield
    finally:
        set_rng_state(state)


def thread_safe_generator() -> Generator | None:
    """The generator a DataLoader thread worker should use: None, as ember's workers are
    processes (each seeds the default generator itself)."""
    return None
