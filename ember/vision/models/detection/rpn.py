"""torchvision.models.detection.rpn: not implemented in ember; the names import and raise
NotImplementedError naming themselves when used."""
from ..._unavailable import stand_ins

_NAMES = ["RPNHead", "RegionProposalNetwork", "concat_box_prediction_layers", "permute_and_flatten"]
globals().update(stand_ins(__name__, _NAMES))
