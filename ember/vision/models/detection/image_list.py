"""torchvision.models.detection.image_list: not implemented in ember; the names import and raise
NotImplementedError naming themselves when used."""
from ..._unavailable import stand_ins

_NAMES = ["ImageList"]
globals().update(stand_ins(__name__, _NAMES))
