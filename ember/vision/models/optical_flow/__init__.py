"""torchvision.models.optical_flow: not implemented in ember; every name imports and raises
NotImplementedError naming itself when used."""
from .raft import *  # noqa: F401,F403
