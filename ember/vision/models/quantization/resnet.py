"""torchvision.models.quantization.resnet: not implemented in ember; the names import and raise
NotImplementedError naming themselves when used."""
from ..._unavailable import stand_ins
from .._api import UNAVAILABLE_MODELS

__all__ = ["QuantizableResNet", "ResNet18_QuantizedWeights", "ResNet50_QuantizedWeights",
           "ResNeXt101_32X8D_QuantizedWeights", "ResNeXt101_64X4D_QuantizedWeights", "resnet18",
           "resnet50", "resnext101_32x8d", "resnext101_64x4d"]
_INTERNAL = ["QuantizableBasicBlock", "QuantizableBottleneck"]
_BUILDERS = ["resnet18", "resnet50", "resnext101_32x8d", "resnext101_64x4d"]
globals().update(stand_ins(__name__, __all__ + _INTERNAL, UNAVAILABLE_MODELS, _BUILDERS,
                           "quantized_"))
