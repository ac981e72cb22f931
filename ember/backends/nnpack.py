"""torch.backends.nnpack: NNPACK, a CPU convolution library torch can use. ember does not:
is_available() is False. The enabled switch is kept (it only picks between kernels that
compute the same convolution)."""
from __future__ import annotations

import contextlib

__all__ = ["is_available", "flags", "set_flags"]

_nnpack_enabled = [True]


def is_available() -> bool:
    """Whether NNPACK can be used: False."""
    return False


def set_flags(_enabled) -> tuple:
    """Enable or disable NNPACK globally; returns the previous setting."""
    if not isinstance(_enabled, bool):
        raise RuntimeError(f"set_enabled_NNPACK expects a bool, but got "
                           f"{type(_enabled).__name__}")
    previous = (_nnpack_enabled[0],)
    _nnpack_enabled[0] = _enabled
    return previous


@contextlib.contextmanager
def flags(enabled=False):
    """Context manager: NNPACK enabled or not inside the block, the old setting after."""
    previous = set_flags(enabled)
    try:
        yield
    finally:
        set_flags(*previous)
