"""torch.cuda's random-state functions on a machine without CUDA: as in torch's CPU build,
saving and restoring the (absent) CUDA generators does nothing, so checkpoint code that
records `torch.cuda.get_rng_state_all()` runs unchanged; asking for a CUDA generator's
own seed or state fails."""
from __future__ import annotations

from ._refusal import no_cuda

__all__ = ["get_rng_state", "get_rng_state_all", "set_rng_state", "set_rng_state_all",
           "manual_seed", "manual_seed_all", "seed", "seed_all", "initial_seed"]


get_rng_state = initial_seed = no_cuda


def get_rng_state_all() -> list:
    """The states of all CUDA generators: none here."""
    return []


def set_rng_state(new_state, device="cuda") -> None:
    """Restore a CUDA generator's state: there is none, so nothing is done (as torch's CPU
    build, which queues the call until CUDA starts)."""


def set_rng_state_all(new_states) -> None:
    """Restore every CUDA generator's state: there are none."""


def manual_seed(seed: int) -> None:
    """A no-op without CUDA (torch's CPU build silently ignores it too)."""


def manual_seed_all(seed: int) -> None:
    """A no-op without CUDA (torch's CPU build silently ignores it too)."""


def seed() -> None:
    """Seed the current CUDA generator randomly: there is none."""


def seed_all() -> None:
    """Seed every CUDA generator randomly: there are none."""
