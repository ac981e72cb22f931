"""torch.distributed.algorithms: of torch's algorithms, only the Join names (see join.py)."""
from .join import Join, Joinable, JoinHook  # noqa: F401
