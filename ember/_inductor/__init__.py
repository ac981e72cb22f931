"""torch._inductor: ember has no inductor (its compile replays NumPy-level plans, see
ember/_dynamo); `config` exists so that scripts that tune inductor run unchanged."""
from . import config  # noqa: F401
