"""torchvision.models.detection: not implemented in ember; every name imports and raises
NotImplementedError naming itself when used."""
from .faster_rcnn import *  # noqa: F401,F403
from .fcos import *  # noqa: F401,F403
from .keypoint_rcnn import *  # noqa: F401,F403
from .mask_rcnn import *  # noqa: F401,F403
from .retinanet import *  # noqa: F401,F403
from .ssd import *  # noqa: F401,F403
from .ssdlite import *  # noqa: F401,F403
