"""torchvision.models.detection.backbone_utils: not implemented in ember; the names import and
raise NotImplementedError naming themselves when used."""
from ..._unavailable import stand_ins

_NAMES = ["BackboneWithFPN", "mobilenet_backbone", "resnet_fpn_backbone"]
globals().update(stand_ins(__name__, _NAMES))
