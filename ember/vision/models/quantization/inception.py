"""torchvision.models.quantization.inception: not implemented in ember; the names import and
raise NotImplementedError naming themselves when used."""
from ..._unavailable import stand_ins
from .._api import UNAVAILABLE_MODELS

__all__ = ["QuantizableInception3", "Inception_V3_QuantizedWeights", "inception_v3"]
_INTERNAL = ["QuantizableBasicConv2d", "QuantizableInceptionA", "QuantizableInceptionAux",
             "QuantizableInceptionB", "QuantizableInceptionC", "QuantizableInceptionD",
             "QuantizableInceptionE"]
_BUILDERS = ["inception_v3"]
globals().update(stand_ins(__name__, __all__ + _INTERNAL, UNAVAILABLE_MODELS, _BUILDERS,
                           "quantized_"))
