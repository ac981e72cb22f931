"""torch.accelerator: the device-neutral API for "the accelerator this build can use".

ember computes on the CPU, which torch does not count as an accelerator, so every answer is
a CPU-only torch build's: is_available() is False, current_accelerator() is None,
device_count() is 0, and whatever needs a device raises torch's RuntimeError. The usual
script pattern picks the CPU:

    device = (torch.accelerator.current_accelerator()
              if torch.accelerator.is_available() else torch.device("cpu"))
"""
from __future__ import annotations

import warnings

from ._utils import NO_ACCELERATOR, fail_for
from .graphs import Graph
from .memory import (empty_cache, empty_host_cache, get_memory_info, max_memory_allocated,
                     max_memory_reserved, memory_allocated, memory_reserved, memory_stats,
                     reset_accumulated_memory_stats, reset_peak_memory_stats)

__all__ = ["Graph", "current_accelerator", "current_device_idx", "current_device_index",
           "get_device_capability", "current_stream", "device_count", "device_index",
           "empty_cache", "empty_host_cache", "get_memory_info", "is_available",
           "max_memory_allocated", "max_memory_reserved", "memory_allocated", "memory_reserved",
           "memory_stats", "reset_accumulated_memory_stats", "reset_peak_memory_stats",
           "set_device_idx", "set_device_index", "set_stream", "synchronize"]


def device_count() -> int:
    """The number of accelerator devices: 0."""
    return 0


def is_available() -> bool:
    """Whether an accelerator is built in and usable at run time: False."""
    return False


def current_accelerator(check_available: bool = False):
    """The accelerator's torch.device, or None when the build has none (always None here;
    check_available adds a run-time check that cannot change that)."""
    return None


def current_device_index() -> int:
    """The index of the current accelerator device (fails: no accelerator)."""
    raise RuntimeError(NO_ACCELERATOR)


def current_device_idx() -> int:
    """Deprecated spelling of current_device_index()."""
    warnings.warn("Use `current_device_index` instead.", FutureWarning, stacklevel=2)
    return current_device_index()


def get_device_capability(device=None, /) -> dict:
    """What the device supports, e.g. {"supported_dtypes": ...} (fails: no accelerator)."""
    fail_for(device)


def set_device_index(device, /) -> None:
    """Make `device` (an index or an indexed torch.device) current (fails: no accelerator)."""
    fail_for(device, optional=False)


def set_device_idx(device, /) -> None:
    """Deprecated spelling of set_device_index()."""
    warnings.warn("Use `set_device_index` instead.", FutureWarning, stacklevel=2)
    set_device_index(device)


def current_stream(device=None, /):
    """The device's current stream (fails: no accelerator)."""
    fail_for(device)


def set_stream(stream) -> None:
    """Make `stream` current on its device (fails: no accelerator)."""
    raise RuntimeError(NO_ACCELERATOR)


def synchronize(device=None, /) -> None:
    """Wait for the device's queued work (fails: no accelerator, as in torch's CPU build)."""
    fail_for(device)


class device_index:
    """Context manager making device index `device` current inside the block. None does
    nothing (and works); an index fails on entry, as there is no accelerator."""

    def __init__(self, device: int | None, /) -> None:
        self.idx = device
        self.prev_idx = -1

    def __enter__(self) -> None:
        if self.idx is None:
            return
        if not isinstance(self.idx, int):
            raise TypeError(f"device_index: expected an int or None, got "
                            f"{type(self.idx).__name__}")
        raise RuntimeError(NO_ACCELERATOR)

    def __exit__(self, *exc_info) -> None:
        """Nothing was changed on entry, so nothing is restored."""
