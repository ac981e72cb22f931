"""torchvision.tv_tensors._bounding_boxes: not implemented in ember; the names import and raise
NotImplementedError naming themselves when used."""
from .. import _unavailable

__all__ = ["BoundingBoxFormat", "is_rotated_bounding_format", "BoundingBoxes"]
globals().update(_unavailable.stand_ins(__name__, __all__))
