"""torchvision.ops.ps_roi_align: position-sensitive RoIAlign (R-FCN); not implemented in ember.
The names import and raise NotImplementedError naming themselves when used."""
from .._unavailable import stand_ins

__all__ = ["ps_roi_align", "PSRoIAlign"]
globals().update(stand_ins(__name__, __all__))
