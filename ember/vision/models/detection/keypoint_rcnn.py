"""torchvision.models.detection.keypoint_rcnn: not implemented in ember; the names import and
raise NotImplementedError naming themselves when used."""
from ..._unavailable import stand_ins
from .._api import UNAVAILABLE_MODELS

__all__ = ["KeypointRCNN", "KeypointRCNN_ResNet50_FPN_Weights", "keypointrcnn_resnet50_fpn"]
_INTERNAL = ["KeypointRCNNHeads", "KeypointRCNNPredictor"]
_BUILDERS = ["keypointrcnn_resnet50_fpn"]
globals().update(stand_ins(__name__, __all__ + _INTERNAL, UNAVAILABLE_MODELS, _BUILDERS))
