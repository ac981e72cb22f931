"""torchvision.models.swin_transformer (Swin Transformer, Liu et al., 2021): not implemented in
ember; the names import and raise NotImplementedError naming themselves when used."""
from .._unavailable import stand_ins
from ._api import UNAVAILABLE_MODELS

__all__ = ["SwinTransformer", "Swin_T_Weights", "Swin_S_Weights", "Swin_B_Weights",
           "Swin_V2_T_Weights", "Swin_V2_S_Weights", "Swin_V2_B_Weights", "swin_t", "swin_s",
           "swin_b", "swin_v2_t", "swin_v2_s", "swin_v2_b"]
_INTERNAL = ["PatchMerging", "PatchMergingV2", "ShiftedWindowAttention",
             "ShiftedWindowAttentionV2", "SwinTransformerBlock", "SwinTransformerBlockV2",
             "shifted_window_attention"]
_BUILDERS = ["swin_t", "swin_s", "swin_b", "swin_v2_t", "swin_v2_s", "swin_v2_b"]
globals().update(stand_ins(__name__, __all__ + _INTERNAL, UNAVAILABLE_MODELS, _BUILDERS))
