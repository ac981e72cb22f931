"""torch.distributed.fsdp.fully_sharded_data_parallel: FSDP1's module (see the package)."""
from . import FullyShardedDataParallel  # noqa: F401
