"""torchvision.datasets.lsun: not implemented in ember; the names import and raise
NotImplementedError naming themselves when used."""
from .. import _unavailable

__all__ = ["LSUNClass", "LSUN"]
globals().update(_unavailable.stand_ins(__name__, __all__))
