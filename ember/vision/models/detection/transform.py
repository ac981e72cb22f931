"""torchvision.models.detection.transform: not implemented in ember; the names import and raise
NotImplementedError naming themselves when used."""
from ..._unavailable import stand_ins

_NAMES = ["GeneralizedRCNNTransform", "resize_boxes", "resize_keypoints"]
globals().update(stand_ins(__name__, _NAMES))
