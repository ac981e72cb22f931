"""torchvision.models.segmentation: not implemented in ember; every name imports and raises
NotImplementedError naming itself when used."""
from .deeplabv3 import *  # noqa: F401,F403
from .fcn import *  # noqa: F401,F403
from .lraspp import *  # noqa: F401,F403
