"""torchvision.ops.ps_roi_pool: position-sensitive RoI pooling (R-FCN); not implemented in
ember. The names import and raise NotImplementedError naming themselves when used."""
from .._unavailable import stand_ins

__all__ = ["ps_roi_pool", "PSRoIPool"]
globals().update(stand_ins(__name__, __all__))
