"""torchvision.models.detection.ssdlite: not implemented in ember; the names import and raise
NotImplementedError naming themselves when used."""
from ..._unavailable import stand_ins
from .._api import UNAVAILABLE_MODELS

__all__ = ["SSDLite320_MobileNet_V3_Large_Weights", "ssdlite320_mobilenet_v3_large"]
_INTERNAL = ["SSDLiteClassificationHead", "SSDLiteFeatureExtractorMobileNet", "SSDLiteHead",
             "SSDLiteRegressionHead"]
_BUILDERS = ["ssdlite320_mobilenet_v3_large"]
globals().update(stand_ins(__name__, __all__ + _INTERNAL, UNAVAILABLE_MODELS, _BUILDERS))
