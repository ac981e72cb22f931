"""torchvision.models.video: not implemented in ember; every name imports and raises
NotImplementedError naming itself when used."""
from .mvit import *  # noqa: F401,F403
from .resnet import *  # noqa: F401,F403
from .s3d import *  # noqa: F401,F403
from .swin_transformer import *  # noqa: F401,F403
