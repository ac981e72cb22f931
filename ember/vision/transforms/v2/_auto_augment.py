"""torchvision.transforms.v2._auto_augment: the learned augmentation policies, not
implemented in ember; the names import and raise NotImplementedError when used."""
from ... import _unavailable

__all__ = ["AutoAugment", "RandAugment", "TrivialAugmentWide", "AugMix"]
globals().update(_unavailable.stand_ins(__name__, __all__))
