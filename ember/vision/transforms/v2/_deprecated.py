"""v2.ToTensor, kept for old pipelines (torchvision.transforms.v2._deprecated)."""
from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from ..._pil import is_pil_image
from .. import functional as F1
from ._transform import Transform

__all__ = ["ToTensor"]


class ToTensor(Transform):
    """A PIL image or (H, W, C) array as a float (C, H, W) tensor in [0, 1] (deprecated:
    use Compose([ToImage(), ToDtype(float32, scale=True)]))."""

    def __init__(self) -> None:
        warnings.warn("The transform `ToTensor()` is deprecated and will be removed in a future "
                      "release. Instead, please use `v2.Compose([v2.ToImage(), "
                      "v2.ToDtype(torch.float32, scale=True)])`.Output is equivalent up to "
                      "float precision.")
        super().__init__()

    def _handles(self, inpt) -> bool:
        return isinstance(inpt, np.ndarray) or is_pil_image(inpt)

    def transform(self, inpt: Any, params: dict) -> Any:
        return F1.to_tensor(inpt)
