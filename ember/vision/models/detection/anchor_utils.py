"""torchvision.models.detection.anchor_utils: not implemented in ember; the names import and
raise NotImplementedError naming themselves when used."""
from ..._unavailable import stand_ins

_NAMES = ["AnchorGenerator", "DefaultBoxGenerator"]
globals().update(stand_ins(__name__, _NAMES))
