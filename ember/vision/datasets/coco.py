"""torchvision.datasets.coco: not implemented in ember; the names import and raise
NotImplementedError naming themselves when used."""
from .. import _unavailable

__all__ = ["CocoDetection", "CocoCaptions"]
globals().update(_unavailable.stand_ins(__name__, __all__))
