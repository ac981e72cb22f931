"""torchvision.models.maxvit (MaxViT, Tu et al., 2022): not implemented in ember; the names
import and raise NotImplementedError naming themselves when used."""
from .._unavailable import stand_ins
from ._api import UNAVAILABLE_MODELS

__all__ = ["MaxVit", "MaxVit_T_Weights", "maxvit_t"]
_INTERNAL = ["MBConv", "MaxVitBlock", "MaxVitLayer", "PartitionAttentionLayer",
             "RelativePositionalMultiHeadAttention", "SwapAxes", "WindowDepartition",
             "WindowPartition"]
_BUILDERS = ["maxvit_t"]
globals().update(stand_ins(__name__, __all__ + _INTERNAL, UNAVAILABLE_MODELS, _BUILDERS))
