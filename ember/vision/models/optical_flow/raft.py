"""torchvision.models.optical_flow.raft: not implemented in ember; the names import and raise
NotImplementedError naming themselves when used."""
from ..._unavailable import stand_ins
from .._api import UNAVAILABLE_MODELS

__all__ = ["RAFT", "raft_large", "raft_small", "Raft_Large_Weights", "Raft_Small_Weights"]
_INTERNAL = ["BottleneckBlock", "ConvGRU", "CorrBlock", "FeatureEncoder", "FlowHead",
             "MaskPredictor", "MotionEncoder", "RecurrentBlock", "ResidualBlock", "UpdateBlock"]
_BUILDERS = ["raft_large", "raft_small"]
globals().update(stand_ins(__name__, __all__ + _INTERNAL, UNAVAILABLE_MODELS, _BUILDERS))
