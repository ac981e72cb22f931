"""torchvision.models.video.s3d: not implemented in ember; the names import and raise
NotImplementedError naming themselves when used."""
from ..._unavailable import stand_ins
from .._api import UNAVAILABLE_MODELS

__all__ = ["S3D", "S3D_Weights", "s3d"]
_INTERNAL = ["SepInceptionBlock3D", "TemporalSeparableConv"]
_BUILDERS = ["s3d"]
globals().update(stand_ins(__name__, __all__ + _INTERNAL, UNAVAILABLE_MODELS, _BUILDERS))
