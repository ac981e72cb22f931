"""Geometric kernels of transforms.v2.functional for PIL images and (..., C, H, W) image
tensors (the `*_image` names are the tensor kernels). The bounding-box, mask, keypoint
and video kernels, and affine / perspective / elastic / five and ten crops, raise
NotImplementedError."""
from __future__ import annotations

from .... import _unavailable
from ... import functional as F
from ...functional import InterpolationMode

__all__ = ["resize", "resize_image", "center_crop", "center_crop_image", "crop", "crop_image",
           "resized_crop", "resized_crop_image", "horizontal_flip", "horizontal_flip_image",
           "hflip", "vertical_flip", "vertical_flip_image", "vflip", "pad", "pad_image",
           "rotate", "rotate_image"]


def resize(inpt, size, interpolation=InterpolationMode.BILINEAR, max_size: int | None = None,
           antialias: bool | None = True):
    """Resize to size (h, w), or scale the shorter side to an int size (see
    transforms.functional.resize)."""
    return F.resize(inpt, size, _mode(interpolation), max_size, antialias)


def center_crop(inpt, output_size):
    """Crop the centre, padding with zeros when the image is smaller."""
    return F.center_crop(inpt, output_size)


def crop(inpt, top: int, left: int, height: int, width: int):
    """The box at (top, left) of the given size."""
    return F.crop(inpt, top, left, height, width)


def resized_crop(inpt, top: int, left: int, height: int, width: int, size,
                 interpolation=InterpolationMode.BILINEAR, antialias: bool | None = True):
    """crop, then resize to size."""
    return F.resized_crop(inpt, top, left, height, width, size, _mode(interpolation),
                          antialias=antialias)


def horizontal_flip(inpt):
    """Mirror left-right."""
    return F.hflip(inpt)


def vertical_flip(inpt):
    """Mirror top-bottom."""
    return F.vflip(inpt)


def pad(inpt, padding, fill=0, padding_mode: str = "constant"):
    """Pad the borders (an int, (left/right, top/bottom) or (left, top, right, bottom))."""
    return F.pad(inpt, padding, 0 if fill is None else fill, padding_mode)


def rotate(inpt, angle: float, interpolation=InterpolationMode.NEAREST, expand: bool = False,
           center=None, fill=None):
    """Rotate by angle degrees counter-clockwise about center (default the middle)."""
    return F.rotate(inpt, angle, _mode(interpolation), expand, center, fill)


def _mode(interpolation) -> InterpolationMode:
    """InterpolationMode from v2's accepted spellings: the enum, its value string, or a
    Pillow constant."""
    if isinstance(interpolation, str):
        try:
            return InterpolationMode(interpolation)
        except ValueError:
            raise ValueError(f"Invalid interpolation mode: '{interpolation}'. Supported string "
                             f"values are: {[m.value for m in InterpolationMode]}.") from None
    return F._interpolation(interpolation)


# the tensor kernels are the same functions; the old v1 names stay as aliases
resize_image, center_crop_image, crop_image = resize, center_crop, crop
resized_crop_image, pad_image, rotate_image = resized_crop, pad, rotate
horizontal_flip_image = hflip = horizontal_flip
vertical_flip_image = vflip = vertical_flip

_MISSING = [f"{op}_{kind}" for op in ("resize", "center_crop", "crop", "resized_crop",
                                      "horizontal_flip", "vertical_flip", "pad", "rotate",
                                      "affine", "perspective", "elastic")
            for kind in ("bounding_boxes", "mask", "keypoints", "video")]
_MISSING += ["affine", "affine_image", "perspective", "perspective_image", "elastic",
             "elastic_image", "elastic_transform", "five_crop", "five_crop_image",
             "five_crop_video", "ten_crop", "ten_crop_image", "ten_crop_video"]
globals().update(_unavailable.stand_ins(__name__, _MISSING))
