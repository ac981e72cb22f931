"""torchvision.transforms.v2._temporal: video subsampling, not implemented in ember."""
from ... import _unavailable

__all__ = ["UniformTemporalSubsample"]
globals().update(_unavailable.stand_ins(__name__, __all__))
