"""Colour kernels of transforms.v2.functional for PIL images and image tensors. The video
kernels and the remaining colour operations raise NotImplementedError."""
from __future__ import annotations

from ..... import cat
from ....._tensor import Tensor
from .... import _unavailable
from ... import functional as F

__all__ = ["adjust_brightness", "adjust_brightness_image", "adjust_contrast",
           "adjust_contrast_image", "adjust_saturation", "adjust_saturation_image",
           "adjust_hue", "adjust_hue_image", "rgb_to_grayscale", "rgb_to_grayscale_image",
           "to_grayscale", "grayscale_to_rgb", "grayscale_to_rgb_image"]


def adjust_brightness(inpt, brightness_factor: float):
    """Scale the intensities by brightness_factor."""
    return F.adjust_brightness(inpt, brightness_factor)


def adjust_contrast(inpt, contrast_factor: float):
    """Blend with the mean gray level (0 gives a uniform gray image)."""
    return F.adjust_contrast(inpt, contrast_factor)


def adjust_saturation(inpt, saturation_factor: float):
    """Blend with the grayscale image (0 gives gray, 2 doubles the saturation)."""
    return F.adjust_saturation(inpt, saturation_factor)


def adjust_hue(inpt, hue_factor: float):
    """Shift the hue by hue_factor turns (in [-0.5, 0.5])."""
    return F.adjust_hue(inpt, hue_factor)


def rgb_to_grayscale(inpt, num_output_channels: int = 1):
    """ITU-R 601-2 luma, repeated num_output_channels (1 or 3) times."""
    return F.rgb_to_grayscale(inpt, num_output_channels)


def grayscale_to_rgb(inpt):
    """A one-channel image repeated into three channels (three channels stay as they are)."""
    if not isinstance(inpt, Tensor):
        return inpt.convert("RGB")
    if inpt.shape[-3] == 3:
        return inpt
    return cat([inpt] * 3, dim=-3)


to_grayscale = rgb_to_grayscale
adjust_brightness_image, adjust_contrast_image = adjust_brightness, adjust_contrast
adjust_saturation_image, adjust_hue_image = adjust_saturation, adjust_hue
rgb_to_grayscale_image, grayscale_to_rgb_image = rgb_to_grayscale, grayscale_to_rgb

_MISSING = [f"{op}{kind}" for op in ("adjust_gamma", "adjust_sharpness", "autocontrast",
                                     "equalize", "invert", "permute_channels", "posterize",
                                     "solarize")
            for kind in ("", "_image", "_video")]
_MISSING += [f"adjust_{op}_video" for op in ("brightness", "contrast", "saturation", "hue")]
globals().update(_unavailable.stand_ins(__name__, _MISSING))


# torchvision names ember does not implement: importable, NotImplementedError when used
_UNAVAILABLE = ["grayscale_to_rgb_image_pil"]
globals().update(_unavailable.stand_ins(__name__, _UNAVAILABLE))
