"""torchvision.ops.poolers: the multi-scale RoI pooler of the detection models; not implemented
in ember. The names import and raise NotImplementedError naming themselves when used."""
from .._unavailable import stand_ins

__all__ = ["MultiScaleRoIAlign", "LevelMapper", "initLevelMapper"]
globals().update(stand_ins(__name__, __all__))
