"""torch.distributed.fsdp: fully sharded data parallelism. ember has none (its data
parallelism is DistributedDataParallel over MPI); the names exist for libraries that
import them, and using them raises NotImplementedError."""
from __future__ import annotations

from ..device_mesh import unsupported

__all__ = ["FullyShardedDataParallel", "FSDPModule", "CPUOffloadPolicy",
           "MixedPrecisionPolicy", "fully_shard"]


class FullyShardedDataParallel:
    """FSDP1's wrapper module; cannot be made in ember."""

    def __init__(self, module, *args, **kwargs):
        unsupported("FullyShardedDataParallel")


class FSDPModule:
    """The class fully_shard mixes into a module (no ember module is one)."""


class CPUOffloadPolicy:
    def __init__(self, pin_memory: bool = True):
        unsupported("CPUOffloadPolicy")


class MixedPrecisionPolicy:
    def __init__(self, *args, **kwargs):
        unsupported("MixedPrecisionPolicy")


def fully_shard(module, *args, **kwargs):
    unsupported("fully_shard")
