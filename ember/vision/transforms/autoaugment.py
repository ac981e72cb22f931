"""torchvision.transforms.autoaugment: the learned augmentation policies (AutoAugment,
RandAugment, TrivialAugmentWide, AugMix), not implemented in ember; the names import and
raise NotImplementedError when used."""
from .. import _unavailable

__all__ = ["AutoAugmentPolicy", "AutoAugment", "RandAugment", "TrivialAugmentWide", "AugMix"]
globals().update(_unavailable.stand_ins(__name__, __all__))
