"""torchvision.models.detection.ssd: not implemented in ember; the names import and raise
NotImplementedError naming themselves when used."""
from ..._unavailable import stand_ins
from .._api import UNAVAILABLE_MODELS

__all__ = ["SSD300_VGG16_Weights", "ssd300_vgg16"]
_INTERNAL = ["SSD", "SSDClassificationHead", "SSDFeatureExtractorVGG", "SSDHead",
             "SSDRegressionHead", "SSDScoringHead"]
_BUILDERS = ["ssd300_vgg16"]
globals().update(stand_ins(__name__, __all__ + _INTERNAL, UNAVAILABLE_MODELS, _BUILDERS))
