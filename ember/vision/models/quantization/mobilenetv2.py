"""torchvision.models.quantization.mobilenetv2: not implemented in ember; the names import and
raise NotImplementedError naming themselves when used."""
from ..._unavailable import stand_ins
from .._api import UNAVAILABLE_MODELS

__all__ = ["QuantizableMobileNetV2", "MobileNet_V2_QuantizedWeights", "mobilenet_v2"]
_INTERNAL = ["QuantizableInvertedResidual"]
_BUILDERS = ["mobilenet_v2"]
globals().update(stand_ins(__name__, __all__ + _INTERNAL, UNAVAILABLE_MODELS, _BUILDERS,
                           "quantized_"))
