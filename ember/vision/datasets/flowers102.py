"""torchvision.datasets.flowers102: not implemented in ember; the names import and raise
NotImplementedError naming themselves when used."""
from .. import _unavailable

__all__ = ["Flowers102"]
globals().update(_unavailable.stand_ins(__name__, __all__))
