"""ember.vision.transforms: torchvision.transforms' v1 API on PIL images and tensors (v2 is
the transforms.v2 package). AugMix, which ember does not implement, imports and raises
NotImplementedError naming itself."""
from . import functional  # noqa: F401
from .autoaugment import *  # noqa: F401,F403
from .transforms import *  # noqa: F401,F403
