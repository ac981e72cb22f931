"""torchvision.datasets.clevr: not implemented in ember; the names import and raise
NotImplementedError naming themselves when used."""
from .. import _unavailable

__all__ = ["CLEVRClassification"]
globals().update(_unavailable.stand_ins(__name__, __all__))
