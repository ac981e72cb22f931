"""ember.vision.transforms: torchvision.transforms' v1 API on PIL images and tensors."""
from . import functional  # noqa: F401
from .transforms import *  # noqa: F401,F403
