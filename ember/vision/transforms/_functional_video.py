"""torchvision.transforms._functional_video: not implemented in ember; the names import and
raise NotImplementedError naming themselves when used."""
from .. import _unavailable

__all__ = ["crop", "resize", "resized_crop", "center_crop", "to_tensor", "normalize", "hflip"]
globals().update(_unavailable.stand_ins(__name__, __all__))
