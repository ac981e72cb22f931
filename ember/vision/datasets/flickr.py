"""torchvision.datasets.flickr: not implemented in ember; the names import and raise
NotImplementedError naming themselves when used."""
from .. import _unavailable

__all__ = ["Flickr8kParser", "Flickr8k", "Flickr30k"]
globals().update(_unavailable.stand_ins(__name__, __all__))
