"""torchvision.datasets.places365: not implemented in ember; the names import and raise
NotImplementedError naming themselves when used."""
from .. import _unavailable

__all__ = ["Places365"]
globals().update(_unavailable.stand_ins(__name__, __all__))
