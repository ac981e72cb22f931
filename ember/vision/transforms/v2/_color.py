"""Colour v2 transforms for classification (torchvision.transforms.v2._color): colour
jitter, grayscale and back to RGB. The others (channel permutation, photometric distort,
equalize, invert, posterize, solarize, autocontrast, sharpness) raise
NotImplementedError naming themselves."""
from __future__ import annotations

from typing import Any

from ... import _unavailable
from .. import transforms as v1
from . import functional as F
from ._transform import Transform, _RandomApplyTransform

__all__ = ["ColorJitter", "Grayscale", "RandomGrayscale", "RGB"]


class ColorJitter(Transform):
    """Random brightness, contrast, saturation and hue changes, applied in a random order.
    A number v means the factor range (1 - v, 1 + v) ((-v, v) for hue); None or 0 leaves
    that property alone."""

    def __init__(self, brightness=None, contrast=None, saturation=None, hue=None) -> None:
        super().__init__()
        check = v1.ColorJitter._check_input
        self.brightness = None if brightness is None else check(brightness, "brightness")
        self.contrast = None if contrast is None else check(contrast, "contrast")
        self.saturation = None if saturation is None else check(saturation, "saturation")
        self.hue = None if hue is None else check(hue, "hue", center=0, bound=(-0.5, 0.5),
                                                  clip_first_on_zero=False)

    def make_params(self, flat_inputs: list) -> dict:
        order, *factors = v1.ColorJitter.get_params(self.brightness, self.contrast,
                                                    self.saturation, self.hue)
        return {"order": order.tolist(), "factors": factors}

    def transform(self, inpt: Any, params: dict) -> Any:
        adjust = (F.adjust_brightness, F.adjust_contrast, F.adjust_saturation, F.adjust_hue)
        for index in params["order"]:
            if params["factors"][index] is not None:
                inpt = adjust[index](inpt, params["factors"][index])
        return inpt


class Grayscale(Transform):
    """Convert to grayscale with num_output_channels (1 or 3) channels."""

    def __init__(self, num_output_channels: int = 1) -> None:
        super().__init__()
        self.num_output_channels = num_output_channels

    def transform(self, inpt: Any, params: dict) -> Any:
        return F.rgb_to_grayscale(inpt, num_output_channels=self.num_output_channels)


class RandomGrayscale(_RandomApplyTransform):
    """Convert to grayscale with probability p, keeping the number of channels."""

    def __init__(self, p: float = 0.1) -> None:
        super().__init__(p=p)

    def make_params(self, flat_inputs: list) -> dict:
        return {"num_input_channels": F.get_num_channels(flat_inputs[0])}

    def transform(self, inpt: Any, params: dict) -> Any:
        return F.rgb_to_grayscale(inpt, num_output_channels=params["num_input_channels"])


class RGB(Transform):
    """Make every image three-channel RGB (a grayscale image is repeated)."""

    def transform(self, inpt: Any, params: dict) -> Any:
        return F.grayscale_to_rgb(inpt)


globals().update(_unavailable.stand_ins(__name__, [
    "RandomChannelPermutation", "RandomPhotometricDistort", "RandomEqualize", "RandomInvert",
    "RandomPosterize", "RandomSolarize", "RandomAutocontrast", "RandomAdjustSharpness"]))
