"""torch.distributed._composable.fsdp: the older home of fully_shard (see ember.distributed.fsdp)."""
from ..fsdp import CPUOffloadPolicy, FSDPModule, MixedPrecisionPolicy, fully_shard  # noqa: F401
