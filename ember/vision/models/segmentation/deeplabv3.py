"""torchvision.models.segmentation.deeplabv3: not implemented in ember; the names import and
raise NotImplementedError naming themselves when used."""
from ..._unavailable import stand_ins
from .._api import UNAVAILABLE_MODELS

__all__ = ["DeepLabV3", "DeepLabV3_ResNet50_Weights", "DeepLabV3_ResNet101_Weights",
           "DeepLabV3_MobileNet_V3_Large_Weights", "deeplabv3_mobilenet_v3_large",
           "deeplabv3_resnet50", "deeplabv3_resnet101"]
_INTERNAL = ["ASPP", "ASPPConv", "ASPPPooling", "DeepLabHead"]
_BUILDERS = ["deeplabv3_resnet50", "deeplabv3_resnet101", "deeplabv3_mobilenet_v3_large"]
globals().update(stand_ins(__name__, __all__ + _INTERNAL, UNAVAILABLE_MODELS, _BUILDERS))
