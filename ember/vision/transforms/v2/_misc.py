"""Miscellaneous v2 transforms (torchvision.transforms.v2._misc): Identity, Lambda,
Normalize, GaussianBlur, ToDtype, ConvertImageDtype. LinearTransformation, GaussianNoise
and the bounding-box / keypoint sanitizers raise NotImplementedError naming themselves."""
from __future__ import annotations

import warnings
from typing import Any, Callable

from .... import _dtype, float32
from ... import _unavailable
from .. import transforms as v1
from . import functional as F
from ._transform import Transform

__all__ = ["Identity", "Lambda", "Normalize", "GaussianBlur", "ToDtype", "ConvertImageDtype"]


class Identity(Transform):
    """Return the sample unchanged."""

    def transform(self, inpt: Any, params: dict) -> Any:
        return inpt


class Lambda(Transform):
    """Apply lambd to every input of the given types (default: any type)."""

    def __init__(self, lambd: Callable[[Any], Any], *types: type) -> None:
        super().__init__()
        self.lambd = lambd
        self.types = types or (object,)

    def _handles(self, inpt) -> bool:
        return True

    def transform(self, inpt: Any, params: dict) -> Any:
        return self.lambd(inpt) if isinstance(inpt, self.types) else inpt

    def extra_repr(self) -> str:
        name = getattr(self.lambd, "__name__", None)
        extras = [name] if name else []
        return ", ".join(extras + [f"types={[t.__name__ for t in self.types]}"])


class Normalize(Transform):
    """(image - mean) / std per channel, for float image tensors (PIL images pass
    through, as in torchvision)."""

    _handles_pil = False

    def __init__(self, mean: list, std: list, inplace: bool = False) -> None:
        super().__init__()
        self.mean = list(mean)
        self.std = list(std)
        self.inplace = inplace

    def transform(self, inpt: Any, params: dict) -> Any:
        return F.normalize(inpt, mean=self.mean, std=self.std, inplace=self.inplace)


class GaussianBlur(Transform):
    """Blur with a Gaussian kernel of size kernel_size and a sigma drawn uniformly from
    sigma ((min, max), or a fixed number)."""

    def __init__(self, kernel_size, sigma=(0.1, 2.0)) -> None:
        super().__init__()
        reference = v1.GaussianBlur(kernel_size, sigma)  # validates them
        self.kernel_size = tuple(reference.kernel_size)
        self.sigma = list(reference.sigma)

    def make_params(self, flat_inputs: list) -> dict:
        sigma = v1.GaussianBlur.get_params(self.sigma[0], self.sigma[1])
        return {"sigma": [sigma, sigma]}

    def transform(self, inpt: Any, params: dict) -> Any:
        return F.gaussian_blur(inpt, list(self.kernel_size), params["sigma"])


class ToDtype(Transform):
    """Convert image tensors to dtype; scale=True also maps the value range (e.g. uint8
    [0, 255] to float [0, 1]). A dict dtype ({type or "others": dtype}) chooses per input
    type."""

    _handles_pil = False

    def __init__(self, dtype, scale: bool = False) -> None:
        super().__init__()
        if not isinstance(dtype, (dict, _dtype.dtype)):
            raise ValueError(f"dtype must be a dict or a torch.dtype, got {type(dtype)} instead")
        self.dtype = dtype
        self.scale = scale

    def transform(self, inpt: Any, params: dict) -> Any:
        if isinstance(self.dtype, _dtype.dtype):
            dtype = self.dtype
        elif type(inpt) in self.dtype:
            dtype = self.dtype[type(inpt)]
        elif "others" in self.dtype:
            dtype = self.dtype["others"]
        else:
            raise ValueError(f"No dtype was specified for type {type(inpt)}. If you only need "
                             "to convert the dtype of images or videos, you can just pass e.g. "
                             "dtype=torch.float32. If you're passing a dict as dtype, you can "
                             'use "others" as a catch-all key e.g. dtype={tv_tensors.Mask: '
                             'torch.int64, "others": None} to pass-through the rest of the '
                             "inputs.")
        if dtype is None:
            if self.scale:
                warnings.warn("scale was set to True but no dtype was specified for images or "
                              "videos: no scaling will be done.")
            return inpt
        return F.to_dtype(inpt, dtype=dtype, scale=self.scale)


class ConvertImageDtype(Transform):
    """ToDtype(dtype, scale=True) under its v1 name."""

    _handles_pil = False

    def __init__(self, dtype: _dtype.dtype = float32) -> None:
        super().__init__()
        self.dtype = dtype

    def transform(self, inpt: Any, params: dict) -> Any:
        return F.to_dtype(inpt, dtype=self.dtype, scale=True)


globals().update(_unavailable.stand_ins(__name__, [
    "LinearTransformation", "GaussianNoise", "SanitizeBoundingBoxes", "SanitizeKeyPoints"]))
