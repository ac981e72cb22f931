"""ember.vision: torchvision's shape (datasets, transforms, models, utils) on ember.

Not imported by `import ember` (it would slow it down): write `import ember.vision`.
Pillow, scikit-learn and mnist1d are optional and imported only when used
(pip install ember[vision]).
"""
from . import datasets, io, models, ops, transforms, tv_tensors, utils  # noqa: F401
from .transforms.functional import InterpolationMode  # noqa: F401

__version__ = "0.1.0"

_image_backend = "PIL"


def set_image_backend(backend: str) -> None:
    """Choose how datasets load images: "PIL" (ember's only backend) or "accimage"."""
    global _image_backend
    if backend not in ("PIL", "accimage"):
        raise ValueError(f"Invalid backend '{backend}'. Options are 'PIL' and 'accimage'")
    if backend == "accimage":
        raise NotImplementedError("set_image_backend('accimage'): ember loads images with PIL "
                                  "only")
    _image_backend = backend


def get_image_backend() -> str:
    """The image backend of the datasets: "PIL"."""
    return _image_backend


def set_video_backend(backend: str) -> None:
    """Accepted and ignored, as in torchvision (ember reads no video)."""


def get_video_backend() -> str:
    """torchvision's default video backend name ("pyav"); ember reads no video."""
    return "pyav"


def disable_beta_transforms_warning() -> None:
    """A no-op kept for old code, as in torchvision."""
