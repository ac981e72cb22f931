"""ember.vision.transforms: torchvision.transforms' v1 API on PIL images and tensors (v2 is
the transforms.v2 package). The transforms ember does not implement (AugMix, perspective,
elastic, five and ten crops, LinearTransformation) import and raise NotImplementedError
naming themselves."""
from . import functional  # noqa: F401
from .autoaugment import *  # noqa: F401,F403
from .transforms import *  # noqa: F401,F403
