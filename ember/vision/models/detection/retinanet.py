"""torchvision.models.detection.retinanet: not implemented in ember; the names import and raise
NotImplementedError naming themselves when used."""
from ..._unavailable import stand_ins
from .._api import UNAVAILABLE_MODELS

__all__ = ["RetinaNet", "RetinaNet_ResNet50_FPN_Weights", "RetinaNet_ResNet50_FPN_V2_Weights",
           "retinanet_resnet50_fpn", "retinanet_resnet50_fpn_v2"]
_INTERNAL = ["RetinaNetClassificationHead", "RetinaNetHead", "RetinaNetRegressionHead"]
_BUILDERS = ["retinanet_resnet50_fpn", "retinanet_resnet50_fpn_v2"]
globals().update(stand_ins(__name__, __all__ + _INTERNAL, UNAVAILABLE_MODELS, _BUILDERS))
