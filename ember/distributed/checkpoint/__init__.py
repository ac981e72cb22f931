"""torch.distributed.checkpoint (DCP): sharded checkpoints of DTensor state. ember has no
DTensor, so none of it; the names libraries import exist and refuse use. Save and load
ember checkpoints with torch.save/torch.load on rank 0."""
from . import hf_storage  # noqa: F401
