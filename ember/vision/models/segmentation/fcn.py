"""torchvision.models.segmentation.fcn: not implemented in ember; the names import and raise
NotImplementedError naming themselves when used."""
from ..._unavailable import stand_ins
from .._api import UNAVAILABLE_MODELS

__all__ = ["FCN", "FCN_ResNet50_Weights", "FCN_ResNet101_Weights", "fcn_resnet50", "fcn_resnet101"]
_INTERNAL = ["FCNHead"]
_BUILDERS = ["fcn_resnet50", "fcn_resnet101"]
globals().update(stand_ins(__name__, __all__ + _INTERNAL, UNAVAILABLE_MODELS, _BUILDERS))
