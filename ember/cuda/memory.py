"""torch.cuda's memory counters on a machine without CUDA: every count is 0 and the
statistics are empty, as torch's CPU build reports them."""
from __future__ import annotations

import collections
import warnings

__all__ = ["memory_allocated", "max_memory_allocated", "memory_reserved",
           "max_memory_reserved", "memory_cached", "max_memory_cached", "memory_stats",
           "memory_stats_as_nested_dict", "empty_cache"]


def memory_allocated(device=None) -> int:
    return 0


max_memory_allocated = memory_reserved = max_memory_reserved = memory_allocated


def memory_cached(device=None) -> int:
    """The old name of memory_reserved."""
    warnings.warn("`torch.cuda.memory_cached` has been renamed to `torch.cuda.memory_reserved`",
                  FutureWarning, stacklevel=2)
    return memory_reserved(device)


def max_memory_cached(device=None) -> int:
    """The old name of max_memory_reserved."""
    warnings.warn("`torch.cuda.max_memory_cached` has been renamed to "
                  "`torch.cuda.max_memory_reserved`", FutureWarning, stacklevel=2)
    return max_memory_reserved(device)


def memory_stats(device=None) -> collections.OrderedDict:
    return collections.OrderedDict()


def memory_stats_as_nested_dict(device=None) -> dict:
    return {}


def empty_cache() -> None:
    """ember keeps no device memory cache."""
