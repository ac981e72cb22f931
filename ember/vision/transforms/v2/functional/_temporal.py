"""torchvision.transforms.v2.functional._temporal: video subsampling, not implemented in
ember."""
from .... import _unavailable

__all__ = ["uniform_temporal_subsample", "uniform_temporal_subsample_video"]
globals().update(_unavailable.stand_ins(__name__, __all__))
