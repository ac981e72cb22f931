"""torchvision.models.video.swin_transformer: not implemented in ember; the names import and
raise NotImplementedError naming themselves when used."""
from ..._unavailable import stand_ins
from .._api import UNAVAILABLE_MODELS

__all__ = ["SwinTransformer3d", "Swin3D_T_Weights", "Swin3D_S_Weights", "Swin3D_B_Weights",
           "swin3d_t", "swin3d_s", "swin3d_b"]
_INTERNAL = ["PatchEmbed3d", "ShiftedWindowAttention3d", "shifted_window_attention_3d"]
_BUILDERS = ["swin3d_t", "swin3d_s", "swin3d_b"]
globals().update(stand_ins(__name__, __all__ + _INTERNAL, UNAVAILABLE_MODELS, _BUILDERS))
