"""The preprocessing a pretrained model expects (torchvision.transforms._presets): what
`weights.transforms()` builds. Only ImageClassification serves a model ember has; the
presets of the detection, segmentation, video and optical-flow models raise
NotImplementedError."""
from __future__ import annotations

from ... import float32
from ..._tensor import Tensor
from ...nn import Module
from . import functional as F
from .functional import InterpolationMode

__all__ = ["ObjectDetection", "ImageClassification", "VideoClassification",
           "SemanticSegmentation", "OpticalFlow"]


class ImageClassification(Module):
    """Resize the shorter side to `resize_size`, center-crop to `crop_size`, scale to
    [0, 1] floats and normalize with `mean`/`std`. Takes a PIL image or a (..., C, H, W)
    tensor."""

    def __init__(self, *, crop_size: int, resize_size: int = 256,
                 mean: tuple = (0.485, 0.456, 0.406), std: tuple = (0.229, 0.224, 0.225),
                 interpolation: InterpolationMode = InterpolationMode.BILINEAR,
                 antialias: bool | None = True) -> None:
        super().__init__()
        self.crop_size = [crop_size]
        self.resize_size = [resize_size]
        self.mean = list(mean)
        self.std = list(std)
        self.interpolation = interpolation
        self.antialias = antialias

    def forward(self, img) -> Tensor:
        img = F.resize(img, self.resize_size, interpolation=self.interpolation,
                       antialias=self.antialias)
        img = F.center_crop(img, self.crop_size)
        if not isinstance(img, Tensor):
            img = F.pil_to_tensor(img)
        img = F.convert_image_dtype(img, float32)
        return F.normalize(img, mean=self.mean, std=self.std)

    def __repr__(self) -> str:
        fields = [f"crop_size={self.crop_size}", f"resize_size={self.resize_size}",
                  f"mean={self.mean}", f"std={self.std}", f"interpolation={self.interpolation}"]
        return self.__class__.__name__ + "(" + "".join(f"\n    {f}" for f in fields) + "\n)"

    def describe(self) -> str:
        """The preset in words, as torchvision's model docs print it."""
        return ("Accepts ``PIL.Image``, batched ``(B, C, H, W)`` and single ``(C, H, W)`` image "
                "``torch.Tensor`` objects. The images are resized to "
                f"``resize_size={self.resize_size}`` using "
                f"``interpolation={self.interpolation}``, followed by a central crop of "
                f"``crop_size={self.crop_size}``. Finally the values are first rescaled to "
                f"``[0.0, 1.0]`` and then normalized using ``mean={self.mean}`` and "
                f"``std={self.std}``.")


class _UnavailablePreset(Module):
    """A preset of a model family ember does not have."""

    def __init__(self, *args, **kwargs) -> None:
        raise NotImplementedError(f"torchvision.transforms._presets.{type(self).__name__} is "
                                  "not implemented in ember: it serves the detection, "
                                  "segmentation, video and optical-flow models, which ember "
                                  "does not have")


class ObjectDetection(_UnavailablePreset):
    """Not implemented in ember (detection models are not available)."""


class VideoClassification(_UnavailablePreset):
    """Not implemented in ember (video models are not available)."""


class SemanticSegmentation(_UnavailablePreset):
    """Not implemented in ember (segmentation models are not available)."""


class OpticalFlow(_UnavailablePreset):
    """Not implemented in ember (optical-flow models are not available)."""
