"""torchvision.models.video.resnet: not implemented in ember; the names import and raise
NotImplementedError naming themselves when used."""
from ..._unavailable import stand_ins
from .._api import UNAVAILABLE_MODELS

__all__ = ["VideoResNet", "R3D_18_Weights", "MC3_18_Weights", "R2Plus1D_18_Weights", "r3d_18",
           "mc3_18", "r2plus1d_18"]
_INTERNAL = ["BasicBlock", "BasicStem", "Bottleneck", "Conv2Plus1D", "Conv3DNoTemporal",
             "Conv3DSimple", "R2Plus1dStem"]
_BUILDERS = ["r3d_18", "mc3_18", "r2plus1d_18"]
globals().update(stand_ins(__name__, __all__ + _INTERNAL, UNAVAILABLE_MODELS, _BUILDERS))
