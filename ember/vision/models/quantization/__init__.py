"""torchvision.models.quantization: not implemented in ember; every name imports and raises
NotImplementedError naming itself when used."""
from .googlenet import *  # noqa: F401,F403
from .inception import *  # noqa: F401,F403
from .mobilenet import *  # noqa: F401,F403
from .resnet import *  # noqa: F401,F403
from .shufflenetv2 import *  # noqa: F401,F403
