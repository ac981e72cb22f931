"""torchvision.transforms._transforms_video: not implemented in ember; the names import and
raise NotImplementedError naming themselves when used."""
from .. import _unavailable

__all__ = ["RandomCropVideo", "RandomResizedCropVideo", "CenterCropVideo", "NormalizeVideo",
           "ToTensorVideo", "RandomHorizontalFlipVideo"]
globals().update(_unavailable.stand_ins(__name__, __all__))
