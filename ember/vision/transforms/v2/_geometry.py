"""Geometric v2 transforms for classification (torchvision.transforms.v2._geometry):
resizing, cropping, flipping, padding and rotating images. Their random draws are those
of the v1 transforms. The transforms that serve detection or that ember does not
implement (affine, perspective, elastic, five/ten crops, zoom-out, IoU crop, the random
resizes) raise NotImplementedError naming themselves."""
from __future__ import annotations

import numbers
from collections.abc import Sequence
from typing import Any

from .... import randint
from ... import _unavailable
from .. import transforms as v1
from ..functional import InterpolationMode
from . import functional as F
from ._transform import Transform, _RandomApplyTransform

__all__ = ["Resize", "CenterCrop", "RandomCrop", "RandomResizedCrop", "RandomHorizontalFlip",
           "RandomVerticalFlip", "Pad", "RandomRotation"]

_SIZE_ERROR = "Please provide only two dimensions (h, w) for size."


def _mode_name(interpolation) -> str:
    """v2 keeps the interpolation as the mode's string ("bilinear")."""
    return F._geometry._mode(interpolation).value


class Resize(Transform):
    """Resize to size (h, w), or scale the shorter side to an int size (max_size caps the
    longer side)."""

    def __init__(self, size, interpolation=InterpolationMode.BILINEAR, max_size=None,
                 antialias: bool | None = True) -> None:
        super().__init__()
        if isinstance(size, int):
            size = [size]
        elif isinstance(size, Sequence) and len(size) in (1, 2):
            size = list(size)
        elif size is None:
            if not isinstance(max_size, int):
                raise ValueError(f"max_size must be an integer when size is None, but got "
                                 f"{max_size} instead.")
        else:
            raise ValueError(f"size can be an integer, a sequence of one or two integers, or "
                             f"None, but got {size} instead.")
        self.size = size
        self.interpolation = _mode_name(interpolation)
        self.max_size = max_size
        self.antialias = antialias

    def transform(self, inpt: Any, params: dict) -> Any:
        if self.size is None:
            raise NotImplementedError("Resize(size=None, max_size=...) is not implemented in "
                                      "ember: pass a size")
        return F.resize(inpt, self.size, self.interpolation, self.max_size, self.antialias)


class CenterCrop(Transform):
    """Crop the centre to size (h, w), padding with zeros when the image is smaller."""

    def __init__(self, size) -> None:
        super().__init__()
        self.size = tuple(v1._setup_size(size, _SIZE_ERROR))

    def transform(self, inpt: Any, params: dict) -> Any:
        return F.center_crop(inpt, self.size)


def _padding_ltrb(padding) -> list:
    """v2's stored form of a padding: [left, top, right, bottom]."""
    if isinstance(padding, numbers.Number):
        return [int(padding)] * 4
    if len(padding) == 1:
        return [padding[0]] * 4
    if len(padding) == 2:
        return [padding[0], padding[1]] * 2
    return list(padding)


class RandomCrop(Transform):
    """Crop a random box of size (h, w), after optional padding (pad_if_needed pads images
    smaller than the crop). The paddings are applied as one pad, as torchvision v2."""

    def __init__(self, size, padding=None, pad_if_needed: bool = False, fill=0,
                 padding_mode: str = "constant") -> None:
        super().__init__()
        v1.Pad(padding if padding is not None else 0, fill, padding_mode)  # validates them
        self.size = tuple(v1._setup_size(size, _SIZE_ERROR))
        self.padding = _padding_ltrb(padding) if padding is not None else None
        self.pad_if_needed = pad_if_needed
        self.fill = fill
        self.padding_mode = padding_mode

    def make_params(self, flat_inputs: list) -> dict:
        _, height, width = F.get_dimensions(flat_inputs[0])
        left, top, right, bottom = self.padding or [0, 0, 0, 0]
        height, width = height + top + bottom, width + left + right
        crop_h, crop_w = self.size
        if self.pad_if_needed and width < crop_w:
            extra = crop_w - width  # on each side, as v1
            left, right, width = left + extra, right + extra, width + 2 * extra
        if self.pad_if_needed and height < crop_h:
            extra = crop_h - height
            top, bottom, height = top + extra, bottom + extra, height + 2 * extra
        if height < crop_h or width < crop_w:
            raise ValueError(f"Required crop size {(crop_h, crop_w)} is larger than input "
                             f"image size {(height, width)}.")
        # a coordinate is drawn only along a side that is longer than the crop
        y = int(randint(0, height - crop_h + 1, size=()).item()) if height > crop_h else 0
        x = int(randint(0, width - crop_w + 1, size=()).item()) if width > crop_w else 0
        return {"padding": [left, top, right, bottom], "top": y, "left": x}

    def transform(self, inpt: Any, params: dict) -> Any:
        if any(params["padding"]):
            inpt = F.pad(inpt, params["padding"], self.fill, self.padding_mode)
        return F.crop(inpt, params["top"], params["left"], *self.size)


class RandomResizedCrop(Transform):
    """Crop a random box of random area (scale, a fraction of the image) and aspect ratio
    (ratio), resized to size."""

    def __init__(self, size, scale=(0.08, 1.0), ratio=(3.0 / 4.0, 4.0 / 3.0),
                 interpolation=InterpolationMode.BILINEAR, antialias: bool | None = True) -> None:
        super().__init__()
        v1.RandomResizedCrop(size, scale, ratio)  # validates the arguments
        self.size = tuple(v1._setup_size(size, _SIZE_ERROR))
        self.scale = scale
        self.ratio = ratio
        self.interpolation = _mode_name(interpolation)
        self.antialias = antialias

    def make_params(self, flat_inputs: list) -> dict:
        top, left, height, width = v1.RandomResizedCrop.get_params(flat_inputs[0], self.scale,
                                                                   self.ratio)
        return {"top": top, "left": left, "height": height, "width": width}

    def transform(self, inpt: Any, params: dict) -> Any:
        return F.resized_crop(inpt, **params, size=self.size, interpolation=self.interpolation,
                              antialias=self.antialias)


class RandomHorizontalFlip(_RandomApplyTransform):
    """Mirror the sample left-right with probability p."""

    def transform(self, inpt: Any, params: dict) -> Any:
        return F.horizontal_flip(inpt)


class RandomVerticalFlip(_RandomApplyTransform):
    """Mirror the sample top-bottom with probability p."""

    def transform(self, inpt: Any, params: dict) -> Any:
        return F.vertical_flip(inpt)


class Pad(Transform):
    """Pad the borders (padding_mode constant / edge / reflect / symmetric)."""

    def __init__(self, padding, fill=0, padding_mode: str = "constant") -> None:
        super().__init__()
        v1.Pad(padding, fill, padding_mode)  # validates them
        self.padding = padding
        self.fill = fill
        self.padding_mode = padding_mode

    def transform(self, inpt: Any, params: dict) -> Any:
        return F.pad(inpt, self.padding, self.fill, self.padding_mode)


class RandomRotation(Transform):
    """Rotate by an angle drawn uniformly from degrees (d means (-d, d))."""

    def __init__(self, degrees, interpolation=InterpolationMode.NEAREST, expand: bool = False,
                 center=None, fill=0) -> None:
        super().__init__()
        self.degrees = v1._setup_angle(degrees, name="degrees")
        self.interpolation = _mode_name(interpolation)
        self.expand = expand
        self.fill = fill
        self.center = center

    def make_params(self, flat_inputs: list) -> dict:
        return {"angle": v1.RandomRotation.get_params(self.degrees)}

    def transform(self, inpt: Any, params: dict) -> Any:
        return F.rotate(inpt, params["angle"], self.interpolation, self.expand, self.center,
                        self.fill)


globals().update(_unavailable.stand_ins(__name__, [
    "FiveCrop", "TenCrop", "RandomZoomOut", "RandomAffine", "RandomPerspective",
    "ElasticTransform", "RandomIoUCrop", "RandomShortestSize", "RandomResize", "ScaleJitter"]))
