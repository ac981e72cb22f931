"""ember.nn.parallel: DataParallel and DistributedDataParallel."""
from ..._naming import set_public_module
from .data_parallel import DataParallel, data_parallel
from .distributed import DistributedDataParallel, DistributedDataParallelCPU

set_public_module(__name__, DistributedDataParallelCPU)     # torch defines it here

__all__ = ["DataParallel", "DistributedDataParallel", "DistributedDataParallelCPU",
           "data_parallel"]
