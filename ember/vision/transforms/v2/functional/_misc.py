"""normalize, gaussian_blur, to_dtype and convert_image_dtype of transforms.v2.functional.
The video kernels, gaussian_noise and the sanitizers raise NotImplementedError."""
from __future__ import annotations

from ..... import _dtype, float32
from ....._tensor import Tensor
from .... import _unavailable
from ... import functional as F

__all__ = ["normalize", "normalize_image", "gaussian_blur", "gaussian_blur_image", "to_dtype",
           "to_dtype_image", "convert_image_dtype"]


def normalize(inpt: Tensor, mean: list, std: list, inplace: bool = False) -> Tensor:
    """(inpt - mean) / std per channel of a float image tensor."""
    return F.normalize(inpt, mean, std, inplace)


def gaussian_blur(inpt, kernel_size, sigma=None):
    """Blur with a Gaussian kernel (odd kernel_size; sigma defaults from the size)."""
    return F.gaussian_blur(inpt, kernel_size, sigma)


def to_dtype(inpt: Tensor, dtype: _dtype.dtype = float32, scale: bool = False) -> Tensor:
    """inpt.to(dtype); with scale=True the values are also moved between the value ranges of
    the two types (integers span [0, max of the type], floats [0, 1])."""
    if inpt.dtype == dtype:
        return inpt
    if not scale:
        return inpt.to(dtype)
    if inpt.is_floating_point() and dtype.is_floating_point:
        return inpt.to(dtype)
    return F.convert_image_dtype(inpt, dtype)


def convert_image_dtype(image: Tensor, dtype: _dtype.dtype = float32) -> Tensor:
    """to_dtype(image, dtype, scale=True) (the v1 name)."""
    return to_dtype(image, dtype, scale=True)


normalize_image, gaussian_blur_image, to_dtype_image = normalize, gaussian_blur, to_dtype

_MISSING = ["normalize_video", "gaussian_blur_video", "to_dtype_video", "gaussian_noise",
           "gaussian_noise_image", "gaussian_noise_video", "sanitize_bounding_boxes",
           "sanitize_keypoints"]
globals().update(_unavailable.stand_ins(__name__, _MISSING))
