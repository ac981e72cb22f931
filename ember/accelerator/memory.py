"""torch.accelerator's memory functions. ember has no accelerator, so each fails as on a
CPU-only torch build: the allocator queries before looking at their argument, get_memory_info
after checking it."""
from __future__ import annotations

from collections import OrderedDict

from ._utils import NO_ACCELERATOR, fail_for

__all__ = ["empty_cache", "empty_host_cache", "get_memory_info", "max_memory_allocated",
           "max_memory_reserved", "memory_allocated", "memory_reserved", "memory_stats",
           "reset_accumulated_memory_stats", "reset_peak_memory_stats"]


def empty_cache() -> None:
    """Release the accelerator allocator's unused cached memory (fails: no accelerator)."""
    raise RuntimeError(NO_ACCELERATOR)


def empty_host_cache() -> None:
    """Release the cached pinned host memory (fails: no accelerator)."""
    raise RuntimeError(NO_ACCELERATOR)


def memory_stats(device_index=None, /) -> OrderedDict:
    """The accelerator allocator's statistics (fails: no accelerator)."""
    raise RuntimeError(NO_ACCELERATOR)


def memory_allocated(device_index=None, /) -> int:
    """Bytes currently allocated by tensors on the device (fails: no accelerator)."""
    raise RuntimeError(NO_ACCELERATOR)


def max_memory_allocated(device_index=None, /) -> int:
    """Peak bytes allocated by tensors on the device (fails: no accelerator)."""
    raise RuntimeError(NO_ACCELERATOR)


def memory_reserved(device_index=None, /) -> int:
    """Bytes the allocator currently holds on the device (fails: no accelerator)."""
    raise RuntimeError(NO_ACCELERATOR)


def max_memory_reserved(device_index=None, /) -> int:
    """Peak bytes the allocator held on the device (fails: no accelerator)."""
    raise RuntimeError(NO_ACCELERATOR)


def reset_accumulated_memory_stats(device_index=None, /) -> None:
    """Zero the allocator's accumulated counters (fails: no accelerator)."""
    raise RuntimeError(NO_ACCELERATOR)


def reset_peak_memory_stats(device_index=None, /) -> None:
    """Restart the allocator's peak counters (fails: no accelerator)."""
    raise RuntimeError(NO_ACCELERATOR)


def get_memory_info(device_index=None, /) -> tuple:
    """(free, total) bytes of the device (fails: no accelerator)."""
    fail_for(device_index)
