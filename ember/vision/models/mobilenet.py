"""torchvision.models.mobilenet: MobileNetV2 and V3 under one module."""
from .mobilenetv2 import *  # noqa: F401,F403
from .mobilenetv2 import __all__ as _v2_names
from .mobilenetv3 import *  # noqa: F401,F403
from .mobilenetv3 import __all__ as _v3_names

__all__ = _v2_names + _v3_names
