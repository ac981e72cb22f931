"""torchvision.models.detection.fcos: not implemented in ember; the names import and raise
NotImplementedError naming themselves when used."""
from ..._unavailable import stand_ins
from .._api import UNAVAILABLE_MODELS

__all__ = ["FCOS", "FCOS_ResNet50_FPN_Weights", "fcos_resnet50_fpn"]
_INTERNAL = ["FCOSClassificationHead", "FCOSHead", "FCOSRegressionHead"]
_BUILDERS = ["fcos_resnet50_fpn"]
globals().update(stand_ins(__name__, __all__ + _INTERNAL, UNAVAILABLE_MODELS, _BUILDERS))
