"""torchvision.ops.roi_pool: RoI max pooling (Fast R-CNN); not implemented in ember. The names
import and raise NotImplementedError naming themselves when used."""
from .._unavailable import stand_ins

__all__ = ["roi_pool", "RoIPool"]
globals().update(stand_ins(__name__, __all__))
