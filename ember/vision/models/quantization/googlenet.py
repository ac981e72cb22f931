"""torchvision.models.quantization.googlenet: not implemented in ember; the names import and
raise NotImplementedError naming themselves when used."""
from ..._unavailable import stand_ins
from .._api import UNAVAILABLE_MODELS

__all__ = ["QuantizableGoogLeNet", "GoogLeNet_QuantizedWeights", "googlenet"]
_INTERNAL = ["QuantizableBasicConv2d", "QuantizableInception", "QuantizableInceptionAux"]
_BUILDERS = ["googlenet"]
globals().update(stand_ins(__name__, __all__ + _INTERNAL, UNAVAILABLE_MODELS, _BUILDERS,
                           "quantized_"))
