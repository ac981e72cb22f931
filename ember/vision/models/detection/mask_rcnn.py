"""torchvision.models.detection.mask_rcnn: not implemented in ember; the names import and raise
NotImplementedError naming themselves when used."""
from ..._unavailable import stand_ins
from .._api import UNAVAILABLE_MODELS

__all__ = ["MaskRCNN", "MaskRCNN_ResNet50_FPN_Weights", "MaskRCNN_ResNet50_FPN_V2_Weights",
           "maskrcnn_resnet50_fpn", "maskrcnn_resnet50_fpn_v2"]
_INTERNAL = ["MaskRCNNHeads", "MaskRCNNPredictor"]
_BUILDERS = ["maskrcnn_resnet50_fpn", "maskrcnn_resnet50_fpn_v2"]
globals().update(stand_ins(__name__, __all__ + _INTERNAL, UNAVAILABLE_MODELS, _BUILDERS))
