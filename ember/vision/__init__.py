"""ember.vision: torchvision's shape (datasets, transforms, models, utils) on ember.

Not imported by `import ember` (it would slow it down): write `import ember.vision`.
Pillow, scikit-learn and mnist1d are optional and imported only when used
(pip install ember[vision]).
"""
from . import datasets, io, models, ops, transforms, tv_tensors, utils  # noqa: F401
from .transforms.functional import InterpolationMode  # noqa: F401

__version__ = "0.1.0"
