"""Conversions between PIL images, NumPy arrays and tensors
(torchvision.transforms.v2._type_conversion). ember has no tv_tensors: ToImage gives a
plain (C, H, W) tensor, which the transforms that follow take for the image."""
from __future__ import annotations

from typing import Any

import numpy as np

from ...._tensor import Tensor
from ..._pil import is_pil_image
from . import functional as F
from ._transform import Transform

__all__ = ["PILToTensor", "ToImage", "ToPILImage", "ToPureTensor"]


class PILToTensor(Transform):
    """A PIL image as a (C, H, W) tensor of its pixel type (no scaling)."""

    _handles_tensors = False

    def transform(self, inpt: Any, params: dict) -> Any:
        return F.pil_to_tensor(inpt)


class ToImage(Transform):
    """The image as a (C, H, W) tensor: from a PIL image, an (H, W, C) NumPy array or a
    tensor."""

    def _handles(self, inpt) -> bool:
        return isinstance(inpt, (Tensor, np.ndarray)) or is_pil_image(inpt)

    def transform(self, inpt: Any, params: dict) -> Any:
        return F.to_image(inpt)


class ToPILImage(Transform):
    """A (C, H, W) tensor or (H, W, C) array as a PIL image (mode as to_pil_image)."""

    _handles_pil = False

    def __init__(self, mode: str | None = None) -> None:
        super().__init__()
        self.mode = mode

    def _handles(self, inpt) -> bool:
        return isinstance(inpt, (Tensor, np.ndarray))

    def transform(self, inpt: Any, params: dict) -> Any:
        return F.to_pil_image(inpt, mode=self.mode)


class ToPureTensor(Transform):
    """Turn tv_tensors into plain tensors; ember's tensors are already plain, so the
    sample is returned unchanged."""

    def forward(self, *inputs: Any) -> Any:
        return inputs if len(inputs) > 1 else inputs[0]
