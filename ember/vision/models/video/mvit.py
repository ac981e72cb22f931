"""torchvision.models.video.mvit: not implemented in ember; the names import and raise
NotImplementedError naming themselves when used."""
from ..._unavailable import stand_ins
from .._api import UNAVAILABLE_MODELS

__all__ = ["MViT", "MViT_V1_B_Weights", "mvit_v1_b", "MViT_V2_S_Weights", "mvit_v2_s"]
_INTERNAL = ["MSBlockConfig", "MultiscaleAttention", "MultiscaleBlock", "Pool",
             "PositionalEncoding"]
_BUILDERS = ["mvit_v1_b", "mvit_v2_s"]
globals().update(stand_ins(__name__, __all__ + _INTERNAL, UNAVAILABLE_MODELS, _BUILDERS))
