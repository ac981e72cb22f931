"""torchvision.models.quantization.mobilenetv3: not implemented in ember; the names import and
raise NotImplementedError naming themselves when used."""
from ..._unavailable import stand_ins
from .._api import UNAVAILABLE_MODELS

__all__ = ["QuantizableMobileNetV3", "MobileNet_V3_Large_QuantizedWeights", "mobilenet_v3_large"]
_INTERNAL = ["QuantizableInvertedResidual", "QuantizableSqueezeExcitation"]
_BUILDERS = ["mobilenet_v3_large"]
globals().update(stand_ins(__name__, __all__ + _INTERNAL, UNAVAILABLE_MODELS, _BUILDERS,
                           "quantized_"))
