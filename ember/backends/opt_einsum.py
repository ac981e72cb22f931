"""torch.backends.opt_einsum: whether torch.einsum orders its contractions with the
opt_einsum package.

ember does not use that package, so is_available() is False and the flags read as on a torch
without it (enabled False, strategy None; enabling raises torch's ValueError). ember's einsum
always picks a contraction order with NumPy's own path optimizer: the order changes only
float rounding and speed, never which values are computed.
"""
from __future__ import annotations

import contextlib

enabled = False
strategy = None


def is_available() -> bool:
    """Whether the opt_einsum package is used: False."""
    return False


def get_opt_einsum():
    """The opt_einsum package when torch uses it, else None: None."""
    return None


def set_flags(_enabled=None, _strategy=None) -> tuple:
    """Set `enabled` and `strategy` (None leaves one alone); returns the previous values.
    Without opt_einsum, enabling it or choosing a strategy is refused, as in torch."""
    global enabled
    previous = (enabled, None)
    if _enabled:
        raise ValueError(f"opt_einsum is not available, so setting `enabled` to {_enabled} will "
                         "not reap the benefits of calculating an optimal path for einsum. "
                         "torch.einsum will fall back to contracting from left to right. To "
                         "enable this optimal path calculation, please install opt-einsum.")
    if _strategy is not None:
        raise ValueError(f"opt_einsum is not available, so setting `strategy` to {_strategy} "
                         "will not be meaningful. torch.einsum will bypass path calculation and "
                         "simply contract from left to right. Please install opt_einsum or unset "
                         "`strategy`.")
    if _enabled is not None:
        enabled = _enabled
    return previous


@contextlib.contextmanager
def flags(enabled=None, strategy=None):
    """Context manager: these flags inside the block, the old ones after."""
    previous = set_flags(enabled, strategy)
    try:
        yield
    finally:
        set_flags(*previous)
