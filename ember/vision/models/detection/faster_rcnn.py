"""torchvision.models.detection.faster_rcnn: not implemented in ember; the names import and
raise NotImplementedError naming themselves when used."""
from ..._unavailable import stand_ins
from .._api import UNAVAILABLE_MODELS

__all__ = ["FasterRCNN", "FasterRCNN_ResNet50_FPN_Weights", "FasterRCNN_ResNet50_FPN_V2_Weights",
           "FasterRCNN_MobileNet_V3_Large_FPN_Weights",
           "FasterRCNN_MobileNet_V3_Large_320_FPN_Weights", "fasterrcnn_resnet50_fpn",
           "fasterrcnn_resnet50_fpn_v2", "fasterrcnn_mobilenet_v3_large_fpn",
           "fasterrcnn_mobilenet_v3_large_320_fpn"]
_INTERNAL = ["FastRCNNConvFCHead", "FastRCNNPredictor", "TwoMLPHead"]
_BUILDERS = ["fasterrcnn_resnet50_fpn", "fasterrcnn_resnet50_fpn_v2",
             "fasterrcnn_mobilenet_v3_large_320_fpn", "fasterrcnn_mobilenet_v3_large_fpn"]
globals().update(stand_ins(__name__, __all__ + _INTERNAL, UNAVAILABLE_MODELS, _BUILDERS))
