"""torchvision.models.detection._utils: not implemented in ember; the names import and raise
NotImplementedError naming themselves when used."""
from ..._unavailable import stand_ins

_NAMES = ["BalancedPositiveNegativeSampler", "BoxCoder", "BoxLinearCoder", "Matcher", "SSDMatcher",
          "encode_boxes", "overwrite_eps", "retrieve_out_channels"]
globals().update(stand_ins(__name__, _NAMES))
