"""torchvision.models.quantization.shufflenetv2: not implemented in ember; the names import and
raise NotImplementedError naming themselves when used."""
from ..._unavailable import stand_ins
from .._api import UNAVAILABLE_MODELS

__all__ = ["QuantizableShuffleNetV2", "ShuffleNet_V2_X0_5_QuantizedWeights",
           "ShuffleNet_V2_X1_0_QuantizedWeights", "ShuffleNet_V2_X1_5_QuantizedWeights",
           "ShuffleNet_V2_X2_0_QuantizedWeights", "shufflenet_v2_x0_5", "shufflenet_v2_x1_0",
           "shufflenet_v2_x1_5", "shufflenet_v2_x2_0"]
_INTERNAL = ["QuantizableInvertedResidual"]
_BUILDERS = ["shufflenet_v2_x0_5", "shufflenet_v2_x1_0", "shufflenet_v2_x1_5", "shufflenet_v2_x2_0"]
globals().update(stand_ins(__name__, __all__ + _INTERNAL, UNAVAILABLE_MODELS, _BUILDERS,
                           "quantized_"))
